// The BFF under test: the real app, the real upstream client and the real simulator, over
// loopback HTTP, with a manual clock and every log line and response captured.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CardService,
  type CardServiceOptions,
  createCardService,
} from '@card-console/card-service-sim';
import type { Role } from '@card-console/shared/api/meta';
import type { Express } from 'express';
import pg from 'pg';
import pino from 'pino';
import supertest from 'supertest';
import { type AppDeps, createApp } from '../app';
import { type Config, loadConfig } from '../env';
import type { ReadinessCheck } from '../features/health/readiness';
import { startReceiptMail } from '../features/receipt-inbox/email/receipt-mail-server';
import {
  createReceiptInboxService,
  type ReceiptReading,
} from '../features/receipt-inbox/inbox-service';
import { lazyReceiptReader } from '../features/receipt-inbox/reading/lazy-reader';
import { RelyingParty } from '../features/sso/relying-party';
import { answerClientErrors } from '../http/client-error';
import type { AuditStore } from '../platform/audit/audit-store';
import { JsonlAuditStore } from '../platform/audit/jsonl-audit-store';
import { createBackgroundJobs } from '../platform/jobs/background-jobs';
import type { KeyedLock } from '../platform/locks/keyed-lock';
import { createLogger } from '../platform/logger';
import type { Metrics } from '../platform/metrics/metrics';
import type { FactorStore } from '../platform/passkeys/factor-store';
import { FileFactorStore } from '../platform/passkeys/file-factor-store';
import type { ExportSlots } from '../platform/security/export-slots';
import { MemorySessionStore, type SessionStore } from '../platform/sessions/session-store';
import { applyIndexMigrations } from '../platform/sql/index-migrations';
import { openSharedStores } from '../platform/sql/shared-stores';
import { postgresEngine } from '../platform/sql/sql-engine';
import type { ScryptParams } from '../platform/users/password-hash';
import type { UserDirectory } from '../platform/users/user-directory';
import { openStores, type Stores } from '../stores';
import { createUpstreamClient, type UpstreamClient } from '../upstream/client';
import { type CapturedResponse, captureResponses, lineSink } from './capture';
import { migratedMemoryEngine } from './engines/embedded';
import { ManualClock } from './manual-clock';
import { SoftwareAuthenticator } from './software-authenticator';
import type { SsoBrowser } from './sso-browser';
import { ssoPeople, type TestIdentityProvider, walkToCallback } from './test-identity-provider';
import { TestSession } from './test-session';
import { buildTestUsers, type TestCredentials } from './test-users';
import { TotpSource } from './totp-source';

export { ManualClock } from './manual-clock';
export type { TestSession } from './test-session';

/** Config overrides; nested policy objects are merged, not replaced. */
export type ConfigOverrides = Partial<Omit<Config, 'rateLimits' | 'session'>> & {
  rateLimits?: Partial<Config['rateLimits']>;
  session?: Partial<Config['session']>;
};

/**
 * A card service of a quarter the demo's transactions (5,000 over the same months and sub
 * accounts, about 9 a day), for tests that read the index's rows but not its volume: months of
 * rows of every kind, and a first sync of ~3 s of CPU rather than ~9.
 */
export const quarterDemo: CardServiceOptions = { transactions: 5_000 };

export interface TestAppOptions {
  sim?: CardServiceOptions;
  clock?: ManualClock;
  env?: ConfigOverrides;
  /** 'production' wires a users file of non-demo accounts and the production cookie. */
  mode?: 'demo' | 'production';
  /** Running CSV exports; the app makes its own from `config.exportCaps` when not given. */
  exportSlots?: ExportSlots;
  /** Per-card edit serialisation; the app's default when not given. */
  locks?: KeyedLock;
  /**
   * Sessions, rate limits, used codes, edit locks, export caps and passkeys in this PostgreSQL
   * database (migrated here if it is not yet), through a pool of the app's own (one app is one
   * replica), as a deployment with DATABASE_URL has them. Apps given the same `shared`,
   * `env.sessionSecret`, `clock` and `upstreamOf` act as replicas of one deployment.
   */
  shared?: { databaseUrl: string };
  /** Where sessions live, when neither the memory default nor `shared` will do. */
  sessionStore?: SessionStore;
  /** Talks to this test app's simulator (with its API key) instead of starting one. */
  upstreamOf?: TestApp;
  /**
   * Talks to this card service (a test's own server on loopback, taking `apiKey`) instead of
   * the simulator; `sim` is then an empty one that is never started.
   */
  upstream?: { url: string; apiKey: string };
  /** Handed to the app and the upstream client (a test's own Prometheus registry). */
  metrics?: Metrics;
  /** Checks /readyz runs besides the card service's. */
  readiness?: ReadinessCheck[];
  /** The app's draining flag (shutdown under way). */
  isDraining?: () => boolean;
  /** The app's `cutOff`: aborting it acts as a shutdown's grace period ending. */
  cutOff?: AbortSignal;
  /** The features' stores (on PostgreSQL, say); by default over the embedded engine in memory. */
  stores?: Stores;
  /** Keep every request the simulator receives (method, URL, headers) in `simRequests`. */
  recordSimRequests?: boolean;
  /** Single sign-on against this (real) OpenID Provider; none when not given. */
  identityProvider?: TestIdentityProvider;
  /** One-time stores in place of the memory defaults (or PostgreSQL's): smaller bounds, say. */
  oneTimeStores?: Pick<AppDeps, 'challengeStore' | 'ssoPendingStore'>;
  /** What the server runs instead of the app: the app mounted in an Express app of the test's. */
  mount?: (app: Express) => http.RequestListener;
  /** The trail the app writes to, made from the test's own (`audit`): a failing one, say. */
  audit?: (trail: JsonlAuditStore) => AuditStore;
  /** What reads inbox receipts; by default the real reader process, closed with the app. */
  receiptReader?: ReceiptReading;
  /** The open days read again in the background while an alert rule is on, this often. */
  openDaysRefreshMs?: number;
  /** The people's password hashes at this cost instead of the tests' cheap one (testScrypt). */
  scrypt?: ScryptParams;
}

/** A request as the simulator received it. */
export interface SimRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface TestApp {
  url: string;
  /** The receipt mail listener's port, when `env.receiptMail` set it up. */
  receiptMailPort?: number;
  /** supertest bound to the running server; keeps no cookies between calls. */
  request: ReturnType<typeof supertest>;
  sim: CardService;
  simUrl: string;
  /** The program's API key the BFF uses: must never show up in a log or a response. */
  apiKey: string;
  clock: ManualClock;
  config: Config;
  /** Every log line written so far (JSON text). */
  logs: string[];
  /** Every response sent so far, with headers and (up to 4 MiB of) body. */
  responses: CapturedResponse[];
  audit: JsonlAuditStore;
  upstream: UpstreamClient;
  /** The app's transaction index (and transaction notes), embedded unless a test gave one. */
  stores: Stores;
  credentials: Record<Role, TestCredentials>;
  /** With `recordSimRequests`: every request the simulator received, in order. */
  simRequests: SimRequest[];
  /** Who may sign in; in production mode read from `usersFile` (demo mode has no file). */
  users: UserDirectory;
  /** Admins' passkeys and TOTP setting (a file in the test's data dir, or PostgreSQL). */
  factors: FactorStore;
  /** The admin's passkeys, in software; `enrolAdminPasskey` adds one through the API. */
  authenticator: SoftwareAuthenticator;
  /** Enrols a passkey for the admin through the API (a stepped-up admin session). */
  enrolAdminPasskey(session?: TestSession): Promise<string>;
  usersFile: string | undefined;
  /** Headers every /api call needs (X-CSRF and the public Origin), plus `extra`. */
  apiHeaders(extra?: Record<string, string>): Record<string, string>;
  /** A current TOTP code for the admin, never one already used (advances the clock if needed). */
  adminTotp(): string;
  /**
   * A session of this role: with a password (an admin's with a TOTP code), or with `sso`
   * through the identity provider (an admin's then confirmed at the provider, so both kinds
   * of admin session have passed a second factor).
   */
  signIn(role: Role, options?: { via?: 'password' | 'sso' }): Promise<TestSession>;
  /** The provider's redirect back (from `walkToCallback`), sent as a browser would. */
  ssoCallback(stopped: { url: string }, browser: SsoBrowser): Promise<supertest.Response>;
  close(): Promise<void>;
}

const silent = pino({ level: 'silent' });

/** Policy limits loose enough that matrix and property tests don't trip them by volume. */
const testRateLimits = {
  apiRequestsPerMinute: 100_000,
  revealsPerMinute: 1_000,
  alertTestsPerMinute: 1_000,
  ssoStartsPerAddressPerMinute: 100_000,
};

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const mode = options.mode ?? 'demo';
  const clock = options.clock ?? new ManualClock();
  const logs: string[] = [];
  const responses: CapturedResponse[] = [];
  const dataDir = await mkdtemp(join(tmpdir(), 'bff-test-'));
  const apiKey =
    options.upstreamOf?.apiKey ??
    options.upstream?.apiKey ??
    `test-key-${randomBytes(16).toString('hex')}`;

  const sim =
    options.upstreamOf?.sim ??
    createCardService(
      options.upstream
        ? { apiKey, subAccounts: 1, cards: 0, transactions: 0 }
        : { apiKey, ...options.sim },
    );
  const simRequests: SimRequest[] = [];
  const recorder = options.recordSimRequests ? await recordingServer(sim, simRequests) : undefined;
  const { url: simUrl } = options.upstreamOf
    ? { url: options.upstreamOf.simUrl }
    : options.upstream
      ? { url: options.upstream.url }
      : (recorder ?? (await sim.listen(0, '127.0.0.1')));
  const { users, credentials, usersFile } = await buildTestUsers(mode, dataDir, options.scrypt);

  const base = loadConfig(
    mode === 'production'
      ? {
          CARD_API_BASE_URL: simUrl,
          CARD_API_KEY: apiKey,
          USERS_FILE: usersFile,
          SESSION_SECRET: randomBytes(32).toString('hex'),
          TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
          PUBLIC_ORIGIN: 'https://cards.example.test',
          DATA_DIR: dataDir,
          WEB_DIST: join(dataDir, 'no-web-dist'),
        }
      : { DEMO_MODE: '1', DATA_DIR: dataDir, WEB_DIST: join(dataDir, 'no-web-dist') },
  );
  const { rateLimits, session, ...rest } = options.env ?? {};
  const config: Config = {
    ...base,
    sso: options.identityProvider?.sso,
    ...rest,
    rateLimits: { ...base.rateLimits, ...testRateLimits, ...rateLimits },
    session: { ...base.session, ...session },
  };

  const logger = createLogger('debug', lineSink(logs), { secrets: [apiKey] });
  const upstream = createUpstreamClient({
    baseUrl: simUrl,
    apiKey,
    logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  const audit = new JsonlAuditStore(config.dataDir, clock);
  if (options.shared) {
    // Replicas started at once queue on the migrations' advisory lock: applied once between them.
    const owner = postgresEngine(new pg.Pool({ connectionString: options.shared.databaseUrl }));
    await applyIndexMigrations(owner, silent).finally(() => owner.close());
  }
  // As a replica with DATABASE_URL opens them (server.ts).
  const shared = options.shared
    ? openSharedStores(options.shared.databaseUrl, config, {
        logger,
        clock,
        ...(options.metrics ? { metrics: options.metrics } : {}),
      })
    : undefined;
  const factors = shared?.factorStore ?? (await FileFactorStore.open(config.dataDir));
  // In memory, opened only if a test asks the index; closed with the app.
  const stores = options.stores ?? openStores({ open: () => migratedMemoryEngine(), logger });
  // Started only if a test drops a receipt into an inbox.
  const receiptReader = lazyReceiptReader(logger);
  // With receipts by email (`env.receiptMail`), the inbox and its listener as server.ts makes
  // them: the listener hands its messages to the app's own inbox.
  const mailed = config.receiptMail;
  const backgroundJobs = mailed
    ? createBackgroundJobs({
        sql: stores.sql,
        isOpen: () => stores.isOpen(),
        clock,
        cutOff: options.cutOff ?? new AbortController().signal,
        logger,
      })
    : undefined;
  const receiptInbox =
    mailed && backgroundJobs
      ? createReceiptInboxService({
          upstream,
          audit: options.audit ? options.audit(audit) : audit,
          clock,
          logger,
          stores,
          backgroundJobs,
          receiptReader: options.receiptReader ?? receiptReader,
          receiptMailDomain: mailed.domain,
        })
      : undefined;
  const mail =
    mailed && receiptInbox ? await startReceiptMail(mailed, receiptInbox, logger) : undefined;
  const app = createApp({
    ...(backgroundJobs && receiptInbox ? { backgroundJobs, receiptInbox } : {}),
    receiptReader: options.receiptReader ?? receiptReader,
    config,
    upstream,
    users,
    stores,
    ...shared,
    factorStore: factors,
    ...(options.identityProvider
      ? { relyingParty: new RelyingParty(options.identityProvider.sso) }
      : {}),
    sessionStore: options.sessionStore ?? shared?.sessionStore ?? new MemorySessionStore(clock),
    ...(options.locks ? { locks: options.locks } : {}),
    audit: options.audit ? options.audit(audit) : audit,
    clock,
    logger,
    ...(options.exportSlots ? { exportSlots: options.exportSlots } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.readiness ? { readiness: options.readiness } : {}),
    ...(options.isDraining ? { isDraining: options.isDraining } : {}),
    ...(options.cutOff ? { cutOff: options.cutOff } : {}),
    ...(options.openDaysRefreshMs
      ? {
          openDaysRefresh: {
            everyMs: options.openDaysRefreshMs,
            engineOpen: () => stores.isOpen(),
          },
        }
      : {}),
    ...options.oneTimeStores,
  });

  const server = http.createServer();
  answerClientErrors(server);
  server.on('request', captureResponses(responses));
  server.on('request', options.mount ? options.mount(app) : app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const request = supertest(server);
  const totp = new TotpSource(clock, credentials.admin.totpSecret ?? '');

  const apiHeaders = (extra: Record<string, string> = {}) => ({
    'X-CSRF': '1',
    Origin: config.publicOrigin,
    ...extra,
  });

  /** The provider's redirect back, sent as a browser would: no SameSite=Strict cookie. */
  async function callback(stopped: { url: string }, browser: SsoBrowser) {
    const back = new URL(stopped.url);
    const binding = browser
      .cookieHeader(url)
      .split('; ')
      .filter((pair) => /^(__Host-)?cc_sso=/.test(pair))
      .join('; ');
    return request.get(`${back.pathname}${back.search}`).set('Cookie', binding);
  }

  async function signInWithSso(role: Role): Promise<TestSession> {
    const idp = options.identityProvider;
    if (!idp) throw new Error('signIn via sso needs the identityProvider option');
    const { email } = ssoPeople[role];
    const first = await walkToCallback(url, idp, email);
    const res = await callback(first.stopped, first.browser);
    if (res.status !== 302 || res.headers.location !== '/cards') {
      throw new Error(`sso sign-in as ${role}: ${res.status} → ${res.headers.location}`);
    }
    const session = TestSession.fromResponse(res, role, config.cookie.name, apiHeaders);
    session.via = 'sso';
    if (role === 'admin') {
      const again = await walkToCallback(url, idp, email, {
        browser: first.browser,
        path: '/api/sso/step-up?returnTo=%2Fcards',
        cookie: session.cookie,
      });
      const stepped = await callback(again.stopped, again.browser);
      if (
        stepped.status !== 302 ||
        stepped.headers.location !== '/cards' ||
        !session.absorb(stepped)
      ) {
        throw new Error(`sso step-up: ${stepped.status} → ${stepped.headers.location}`);
      }
    }
    return session;
  }

  async function signIn(role: Role, how: { via?: 'password' | 'sso' } = {}): Promise<TestSession> {
    if (how.via === 'sso') return signInWithSso(role);
    const { email, password } = credentials[role];
    const body = role === 'admin' ? { email, password, totp: totp.next() } : { email, password };
    const res = await request.post('/api/session').set(apiHeaders()).send(body);
    if (res.status !== 200) {
      throw new Error(`test sign-in as ${role} failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
    return TestSession.fromResponse(res, role, config.cookie.name, apiHeaders);
  }

  const authenticator = new SoftwareAuthenticator();
  async function enrolAdminPasskey(given?: TestSession): Promise<string> {
    const session = given ?? (await signIn('admin'));
    const options = await request
      .post('/api/passkeys/registration-options')
      .set(session.headers())
      .send({});
    if (options.status !== 200) throw new Error(`registration options: ${options.status}`);
    const response = authenticator.create(options.body, config.publicOrigin);
    const enrolled = await request
      .post('/api/passkeys')
      .set(session.headers())
      .send({ name: `Test passkey ${authenticator.passkeys.length}`, response });
    if (enrolled.status !== 201) {
      throw new Error(`enrolment: ${enrolled.status} ${JSON.stringify(enrolled.body)}`);
    }
    return enrolled.body.id as string;
  }

  return {
    url,
    ...(mail ? { receiptMailPort: mail.port } : {}),
    request,
    sim,
    stores,
    factors,
    ssoCallback: callback,
    authenticator,
    enrolAdminPasskey,
    simUrl,
    apiKey,
    clock,
    config,
    logs,
    responses,
    audit,
    upstream,
    credentials,
    simRequests,
    users,
    usersFile,
    apiHeaders,
    adminTotp: () => totp.next(),
    signIn,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await mail?.close();
      await upstream.close();
      await receiptReader.close();
      await stores.close();
      await shared?.close();
      if (!options.upstreamOf && !options.upstream) await (recorder ?? sim).close();
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/** The simulator behind a server of our own that notes each request before the simulator answers. */
async function recordingServer(sim: CardService, into: SimRequest[]) {
  const server = http.createServer((req, res) => {
    into.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers } });
    sim.handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
