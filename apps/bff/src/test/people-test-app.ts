// The People endpoints over loopback HTTP for tests: the same API router, authorizer, session
// service, step-up, rate limiters, hashing gate, audit trail and error handler the app builds
// (app.ts), with a real PeopleStore. Apps given the same store, session store, secret and clock
// act as replicas of one deployment. Sessions are written straight into the session store (as
// a sign-in would leave them): what is under test is what the People endpoints do with them.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Role } from '@card-console/shared/api/meta';
import express from 'express';
import type { Logger } from 'pino';
import supertest from 'supertest';
import { type Config, loadConfig } from '../env';
import { peopleFeature } from '../features/people/people-endpoints';
import type { PeopleDeps } from '../features/people/people-service';
import type { PeopleStore } from '../features/people/people-store';
import type { PersonSession, PersonSessions } from '../features/people/person-sessions';
import { createApiRouter } from '../http/api-router';
import { createAuthorizer } from '../http/authorize';
import { errorHandler } from '../http/error-handler';
import { requestId } from '../http/request-id';
import type { AuditStore } from '../platform/audit/audit-store';
import type { BeforeCommit } from '../platform/audit/audited-change';
import { JsonlAuditStore } from '../platform/audit/jsonl-audit-store';
import type { SendInvitation } from '../platform/notify/invitation-email';
import type { PasskeyCeremonies } from '../platform/passkeys/passkey-ceremonies';
import type { SecondFactors } from '../platform/passkeys/second-factors';
import { createRateLimiters, memoryRateLimiters } from '../platform/security/rate-limits';
import { SecondFactorStepUp } from '../platform/security/step-up';
import { MemoryUsedCodeLedger, TotpVerifier } from '../platform/security/totp';
import { SessionService, sessionStoreKey } from '../platform/sessions/session-service';
import {
  MemorySessionStore,
  type SessionRecord,
  type SessionStore,
} from '../platform/sessions/session-store';
import { createHashingGate } from '../platform/users/hashing-gate';
import { silentLogger } from './audit-cluster';
import type { ManualClock } from './manual-clock';

/** Sessions of people as a test arranges them; `ended` lists every email whose were ended. */
export class FakePersonSessions implements PersonSessions {
  readonly open = new Map<string, PersonSession[]>();
  readonly endedAll: string[] = [];

  add(email: string, session: PersonSession): void {
    this.open.set(email, [...(this.open.get(email) ?? []), session]);
  }

  async list(email: string): Promise<PersonSession[]> {
    return [...(this.open.get(email) ?? [])].sort((a, b) => b.startedAt - a.startedAt);
  }

  /** Like the SQL table, the audit hook runs before anything is ended, and may refuse it. */
  async end(email: string, id: string, audited?: BeforeCommit<true>): Promise<boolean> {
    const mine = this.open.get(email) ?? [];
    const left = mine.filter((s) => s.id !== id);
    if (left.length < mine.length) await audited?.(true, undefined);
    this.open.set(email, left);
    return left.length < mine.length;
  }

  async endAll(email: string, audited?: BeforeCommit<number>): Promise<number> {
    const count = this.open.get(email)?.length ?? 0;
    await audited?.(count, undefined);
    this.endedAll.push(email);
    this.open.delete(email);
    return count;
  }
}

export interface PeopleTestAppOptions {
  store: PeopleStore;
  clock: ManualClock;
  sessions?: PersonSessions;
  /** Shared by replicas, with `secret`. */
  sessionStore?: SessionStore;
  secret?: string;
  rateLimits?: Partial<Config['rateLimits']>;
  sendInvitation?: SendInvitation;
  /** Where the app's log lines go; silent by default. */
  logger?: Logger;
  /** Leave `people` out: the app does not keep people in its store. */
  withoutPeople?: boolean;
  /** The trail the app writes to, made from the test's own (`audit`): a failing one, say. */
  audit?: (trail: JsonlAuditStore) => AuditStore;
}

export interface PeopleTestApp {
  request: ReturnType<typeof supertest>;
  config: Config;
  audit: JsonlAuditStore;
  sessionStore: SessionStore;
  secret: string;
  sessions: PersonSessions;
  /** A session of `email` as signing in leaves it; stepped up now unless told otherwise. */
  signIn(email: string, role: Role, options?: { steppedUp?: boolean }): Promise<TestCookie>;
  /** X-CSRF and our Origin, plus the session's cookie when given. */
  headers(session?: TestCookie): Record<string, string>;
  close(): Promise<void>;
}

export interface TestCookie {
  cookie: string;
  ref: string;
}

export async function startPeopleApp(options: PeopleTestAppOptions): Promise<PeopleTestApp> {
  const { clock, store } = options;
  const dataDir = await mkdtemp(join(tmpdir(), 'people-test-'));
  const base = loadConfig({
    DEMO_MODE: '1',
    DATA_DIR: dataDir,
    WEB_DIST: join(dataDir, 'no-web-dist'),
  });
  const secret = options.secret ?? base.sessionSecret;
  const config: Config = {
    ...base,
    sessionSecret: secret,
    rateLimits: { ...base.rateLimits, apiRequestsPerMinute: 100_000, ...options.rateLimits },
  };
  const logger = options.logger ?? silentLogger;
  const trail = new JsonlAuditStore(dataDir, clock);
  const audit = options.audit ? options.audit(trail) : trail;
  const sessionStore = options.sessionStore ?? new MemorySessionStore(clock);
  const sessions = new SessionService(sessionStore, clock, config);
  const limiters = createRateLimiters(memoryRateLimiters, config.rateLimits, config.session);
  const totp = new TotpVerifier(clock, new MemoryUsedCodeLedger());
  // Admins step up with a code; these tests never send one (a recent check or none).
  const factors = {
    stepUpMethods: async (record: Pick<SessionRecord, 'role'>) =>
      record.role === 'admin' ? ['totp'] : [],
    totpSecret: async () => undefined,
  } as unknown as SecondFactors;
  const stepUp = new SecondFactorStepUp({
    sessions,
    factors,
    passkeys: {} as PasskeyCeremonies,
    totp,
    limiters,
    audit,
    logger,
  });
  const personSessions = options.sessions ?? new FakePersonSessions();
  const deps: PeopleDeps = {
    audit,
    stepUp,
    logger,
    clock,
    people: options.withoutPeople
      ? undefined
      : {
          store,
          sessions: personSessions,
          ...(options.sendInvitation ? { sendInvitation: options.sendInvitation } : {}),
        },
    limiters,
    hashing: createHashingGate({
      atOnce: config.rateLimits.signInHashesAtOnce,
      queued: config.rateLimits.signInHashesQueued,
    }),
    totp,
    signedOutUrl: `${config.publicOrigin}/sign-in`,
  };
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId());
  app.use(
    '/api',
    createApiRouter({
      sessions,
      allowedOrigins: config.allowedOrigins,
      logger,
      authorize: createAuthorizer({ audit, limiters, logger }),
      features: [peopleFeature],
      deps,
    }),
  );
  app.use(errorHandler(logger));
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    request: supertest(url),
    config,
    audit: trail,
    sessionStore,
    secret,
    sessions: personSessions,
    async signIn(email, role, { steppedUp = true } = {}) {
      const id = randomBytes(32).toString('base64url');
      const now = clock.now();
      const ref = randomBytes(16).toString('base64url');
      const record: SessionRecord = {
        email,
        role,
        createdAt: now,
        lastSeenAt: now,
        method: 'password',
        ref,
        ...(steppedUp ? { stepUpAt: now } : {}),
      };
      await sessionStore.set(sessionStoreKey(secret, id), record, config.session.idleMs);
      return { cookie: `${config.cookie.name}=${id}`, ref };
    },
    headers(session) {
      return {
        'X-CSRF': '1',
        Origin: config.publicOrigin,
        ...(session ? { Cookie: session.cookie } : {}),
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}
