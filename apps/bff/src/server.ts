// The BFF's process: builds the real dependencies, listens, and drains on SIGTERM/SIGINT (this
// node process is the one that receives the signal: no package manager or shell in between in
// production). Started by the production entry (index.ts) and by the demo's (demo/main.ts),
// which hands it the simulator and its identity provider: this file imports neither.
import http from 'node:http';
import { join } from 'node:path';
import { createApp } from './app';
import { systemClock } from './core/clock';
import { type Config, ConfigError, loadConfig, type SsoConfig } from './env';
import { createCardDirectory, upstreamCardPages } from './features/cards/card-directory';
import type { ReadinessCheck } from './features/health/readiness';
import { cachedStandings } from './features/people/cached-standings';
import type { PeopleStore } from './features/people/people-store';
import { logSecretsSealed } from './features/people/person-secrets';
import { SqlPersonDirectory } from './features/people/sql-person-directory';
import { sqlPersonSessions } from './features/people/sql-person-sessions';
import { createReceiptInboxService } from './features/receipt-inbox/inbox-service';
import { lazyReceiptReader } from './features/receipt-inbox/reading/lazy-reader';
import type { RelyingParty } from './features/sso/relying-party';
import { answerClientErrors } from './http/client-error';
import { logHeadEvery } from './platform/audit/audit-head';
import { JsonlAuditStore } from './platform/audit/jsonl-audit-store';
import type { PostgresAudit } from './platform/audit/postgres-audit';
import { createBackgroundJobs } from './platform/jobs/background-jobs';
import { type Closer, createGracefulShutdown } from './platform/lifecycle/graceful-shutdown';
import { createLogger, createStdoutDestination } from './platform/logger';
import { startMetricsServer } from './platform/metrics/metrics-server';
import { createProcessRegistry } from './platform/metrics/process-registry';
import { createPrometheusMetrics } from './platform/metrics/prometheus-metrics';
import { shareThePublishedLimit } from './platform/pagination/replica-roll';
import type { FactorStore } from './platform/passkeys/factor-store';
import { FileFactorStore } from './platform/passkeys/file-factor-store';
import { TotpSecretBox } from './platform/security/totp-secret-box';
import { MemorySessionStore } from './platform/sessions/session-store';
import { embeddedEngine } from './platform/sql/sql-engine';
import { StoreUnavailableError } from './platform/store-unavailable';
import { UserDirectory } from './platform/users/user-directory';
import { watchUsersFile } from './platform/users/watch-users-file';
import { openStores, peopleStoreOn, type SeedStores } from './stores';
import { createUpstreamClient } from './upstream/client';

/** A card service started for this process (demo mode's simulator), used instead of CARD_API_*. */
export interface StartedCardService {
  baseUrl: string;
  apiKey: string;
  /** Its published rate limit, unless the operator set one (`cardApiPace.rate`). */
  rateLimit?: { perSecond: number; burst: number };
  close(): Promise<void>;
}

/** The provider `config.sso === 'demo'` stands for (demo mode's own, on loopback), started. */
export type StartedIdentityProvider = Pick<
  SsoConfig,
  'issuer' | 'clientId' | 'clientSecret' | 'roleClaim' | 'roleMap'
> & { close(): Promise<void> };

/** What the demo entry point starts before the server (demo/main.ts); production has neither. */
export interface DemoParts {
  upstream?: StartedCardService;
  identityProvider?: StartedIdentityProvider;
  /**
   * Fills the stores when they are first opened (the demo's chart of accounts, its cards' owners
   * and teams).
   */
  seed?: (stores: SeedStores) => Promise<void>;
}

/** The configuration from the environment; a bad or missing variable ends the process (exit 1). */
export function configOrExit(env: NodeJS.ProcessEnv): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/** Starts the server, or says why it could not and exits 1. */
export function runServer(config: Config, demoParts: DemoParts = {}): void {
  startServer(config, demoParts).catch((error: unknown) => {
    console.error('Card Console failed to start:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

async function startServer(
  config: Config,
  { upstream: demo, identityProvider: demoProvider, seed }: DemoParts,
) {
  const baseUrl = demo?.baseUrl ?? config.cardApiBaseUrl;
  const apiKey = demo?.apiKey ?? config.cardApiKey;
  if (!baseUrl || !apiKey) throw new Error('unreachable: loadConfig insists on both outside demo');
  // Made once the key is known, so no line it writes can carry the key.
  const logger = createLogger(config.logLevel, createStdoutDestination(), { secrets: [apiKey] });

  // Who signs in lives in the people store (below); the users file, or in demo mode the demo
  // accounts (linked to the demo provider's people, as an operator links people with
  // `pnpm users link`), is imported into it. Single sign-on only: no users file, nothing to import.
  let fileUsers: UserDirectory | undefined;
  try {
    fileUsers = config.usersFile
      ? await UserDirectory.fromFile(config.usersFile)
      : config.mode === 'demo'
        ? await UserDirectory.demo(demoProvider ? { ssoIssuer: demoProvider.issuer } : {})
        : undefined;
  } catch (error) {
    logger.fatal((error as Error).message);
    process.exit(1);
  }

  // One registry for the process, handed in (no global one): every series the BFF reports.
  const registry = createProcessRegistry();
  const metrics = createPrometheusMetrics(registry);
  /** Run after the server has stopped, last added first: pools and clients close after use. */
  const closers: Closer[] = [];
  /** What /readyz checks besides the card service (PostgreSQL when configured). */
  const readiness: ReadinessCheck[] = [];
  if (demo) closers.push(() => demo.close());
  // Without DATABASE_URL the embedded engine in DATA_DIR is this process's alone while it runs:
  // `pnpm users --server-stopped` (or a second server on the same folder) is refused, and this
  // start is refused while one of those holds it. Released last, after the engine has closed.
  if (!config.databaseUrl) {
    const { lockEmbeddedStore, STALE_MS } = await import('./platform/locks/data-dir-lock');
    try {
      closers.push(
        await lockEmbeddedStore(config.dataDir, {
          busy: `DATA_DIR (${config.dataDir}) is in use by another process: a \`pnpm users … --server-stopped\` still running, or another Card Console on the same DATA_DIR. The embedded engine takes one process at a time: let it finish (or stop it), then start again.`,
          // A restart after a crash (SIGKILL, out of memory) finds the dead process's lock: it
          // is taken over once untouched for STALE_MS, so the start waits that long, not fails.
          waitMs: STALE_MS + 5_000,
          waiting: () =>
            logger.warn(
              `DATA_DIR (${config.dataDir}) is locked by another process, or by one that stopped without releasing it (a crash): waiting up to ${(STALE_MS + 5_000) / 1000} s for it to be free.`,
            ),
          onLost: (error) =>
            logger.error(
              { err: error },
              'the lock on DATA_DIR was lost: another process may open the embedded engine',
            ),
        }),
      );
    } catch (error) {
      logger.fatal((error as Error).message);
      await Promise.all(closers.map(async (close) => close()));
      process.exit(1);
    }
  }
  // The audit trail in PostgreSQL when DATABASE_URL is set, the embedded chained file in
  // DATA_DIR otherwise. PostgreSQL's schemas are `pnpm migrate`'s: start-up only checks that
  // each is the one this build knows (one behind or newer stops it, saying why).
  let postgres: PostgresAudit | undefined;
  if (config.databaseUrl) {
    try {
      // Loaded only when configured: demo mode never holds the driver.
      const [{ connectPostgresAudit }, { assertIndexSchemaCurrent }] = await Promise.all([
        import('./platform/audit/postgres-audit'),
        import('./platform/sql/open-postgres'),
      ]);
      postgres = await connectPostgresAudit({
        url: config.databaseUrl,
        logger,
        metrics,
        schemaChecks: [assertIndexSchemaCurrent],
      });
    } catch (error) {
      logger.fatal({ err: error }, `PostgreSQL not usable: ${(error as Error).message}`);
      await Promise.all(closers.map(async (close) => close()));
      process.exit(1);
    }
    const pool = postgres;
    closers.push(() => pool.close());
    readiness.push(pool.readiness);
  }

  const upstream = createUpstreamClient({
    baseUrl,
    apiKey,
    logger,
    metrics,
    bulkConcurrency: config.cardApiPace.pagesAtOnce,
    connections: Math.max(40, config.cardApiPace.pagesAtOnce + 8),
    rateLimit: config.cardApiPace.rate ?? demo?.rateLimit,
  });
  closers.push(() => upstream.close());

  // Single sign-on: the company's provider, or in demo mode our own on loopback (started above).
  let relyingParty: RelyingParty | undefined;
  if (config.sso) {
    const { RelyingParty } = await import('./features/sso/relying-party');
    let sso = config.sso;
    if (sso === 'demo') {
      if (!demoProvider) throw new Error('unreachable: the demo entry starts the demo provider');
      closers.push(() => demoProvider.close());
      sso = {
        issuer: demoProvider.issuer,
        clientId: demoProvider.clientId,
        clientSecret: demoProvider.clientSecret,
        roleClaim: demoProvider.roleClaim,
        roleMap: demoProvider.roleMap,
        scopes: ['email', 'profile', 'groups'],
        label: 'demo SSO',
      };
      logger.info({ issuer: demoProvider.issuer }, 'demo identity provider started on loopback');
    }
    relyingParty = new RelyingParty(sso);
    // Discovered now, not by the first person who clicks: retried in the background while it
    // fails (each failure logged with its cause), and reported in /readyz until it succeeds.
    closers.push(relyingParty.discoverInBackground(logger));
    const { identityProviderReadiness } = await import(
      './features/sso/identity-provider-readiness'
    );
    readiness.push(identityProviderReadiness(relyingParty));
  }

  // The database (platform/sql) and the features' stores over it, opened on first use and
  // closed last: in PostgreSQL with DATABASE_URL (shared by the replicas), else the embedded
  // engine in DATA_DIR.
  const { databaseUrl } = config;
  const stores = openStores(
    databaseUrl
      ? {
          open: async () => {
            const { openPostgresIndex } = await import('./platform/sql/open-postgres');
            try {
              return await openPostgresIndex({ url: databaseUrl, logger });
            } catch (error) {
              logger.error({ err: error }, 'the transaction index could not be opened');
              throw new StoreUnavailableError('postgres', 'opening the transaction index', {
                cause: error,
              });
            }
          },
          migrate: false,
          kind: 'postgres',
          logger,
        }
      : {
          open: () =>
            embeddedEngine(join(config.dataDir, 'transaction-index'), { thread: 'worker' }),
          logger,
          ...(seed ? { seed } : {}),
        },
  );
  closers.push(() => stores.close());

  // Shared state for several replicas: in PostgreSQL with DATABASE_URL (tables beside the
  // index's, on pools of their own), in this process otherwise (createApp's in-memory defaults).
  const shared = databaseUrl
    ? (await import('./platform/sql/shared-stores')).openSharedStores(databaseUrl, config, {
        logger,
        metrics,
      })
    : undefined;
  if (shared) closers.push(() => shared.close());
  // The card service's published rate limit is its key's, whichever replica calls: with
  // several, each one's walks keep to their part of it, counted by the roll of replicas alive
  // (platform/pagination/replica-roll.ts). Stopped before the shared stores close.
  if (shared && upstream.pace && (config.cardApiPace.rate ?? demo?.rateLimit)) {
    const sharing = shareThePublishedLimit({
      roll: shared.replicaRoll,
      pace: upstream.pace,
      logger,
    });
    await sharing.ready;
    closers.push(() => sharing.stop());
  }
  // Admins' passkeys: in PostgreSQL with DATABASE_URL, else a file beside the audit trail.
  let factorStore: FactorStore;
  try {
    factorStore = shared?.factorStore ?? (await FileFactorStore.open(config.dataDir));
  } catch (error) {
    logger.fatal((error as Error).message);
    await Promise.all(closers.map(async (close) => close()));
    process.exit(1);
  }
  // Passkeys an earlier build kept in DATA_DIR's file beside PostgreSQL come in once (logged,
  // never stopping the start).
  if (databaseUrl && postgres) {
    const { importFactorsFileAtStart } = await import('./platform/passkeys/import-factors-file');
    await importFactorsFileAtStart({
      url: databaseUrl,
      dataDir: config.dataDir,
      audit: postgres.store,
      logger,
    });
  }

  // People: in the index's engine, shared by the replicas. The users file's people are brought
  // in once per email (importUsers), so no one is lost on upgrade and nothing changed in
  // Card Console is undone by the file at the next start. Done when people are first needed
  // (a sign-in), as the index opens when first used; a failed import is logged and tried again
  // at the next need. Then every TOTP secret not sealed with TOTP_ENCRYPTION_KEY is sealed with it
  // (kept in clear before, or under a previous key); those no key opens are logged as errors.
  const totpSecrets = new TotpSecretBox(config.totpKeys);
  const peopleStore = peopleStoreOn(stores.sql, totpSecrets);
  let toImport = fileUsers?.users();
  let importing: Promise<PeopleStore> | undefined;
  const importedPeople = () => {
    importing ??= (async () => {
      await stores.people();
      if (toImport) {
        const { added } = await peopleStore.importUsers(toImport);
        if (added.length > 0)
          logger.info({ added: added.length }, 'people imported from the users file');
      }
      logSecretsSealed(logger, await peopleStore.sealSecrets());
      return peopleStore;
    })();
    importing.catch((error: unknown) => {
      importing = undefined;
      logger.error({ err: error }, `people not imported yet: ${(error as Error).message}`);
    });
    return importing;
  };
  // The embedded engine's first open (seconds of initdb on this thread) and the people's import
  // are part of being ready: /readyz says so until they are done, and asking starts them.
  if (!databaseUrl) {
    readiness.push({
      name: 'database',
      check: async () => {
        await importedPeople();
      },
    });
  }
  const demoLinks = config.mode === 'demo' && !config.usersFile ? fileUsers : undefined;
  // Each request's check of its person reads through a short cache. With DATABASE_URL a brief
  // PostgreSQL outage does not stop reads, and a change made on another replica is seen within
  // 5 s; a change made here (People, ending a session) is seen at once. One process makes every
  // change itself, so it is never stale, and the cache spares each request a query on the
  // embedded engine, which runs on this thread: about 40% of a proxied read's CPU in the
  // benchmark's profile (docs/decisions/0114-one-shared-engine.md).
  const standings = cachedStandings(() => stores.personSessions(), systemClock);
  const users = await SqlPersonDirectory.create(
    {
      people: importedPeople,
      sessions: standings.table,
      ...(demoLinks
        ? { linkedElsewhere: (issuer, subject) => demoLinks.findLinked(issuer, subject)?.email }
        : {}),
    },
    config.mode === 'demo' && !config.usersFile ? 'demo' : 'production',
  );
  const sqlSessions = sqlPersonSessions({
    table: () => stores.personSessions(),
    people: importedPeople,
    clock: systemClock,
    limits: config.session,
  });
  const personSessions = standings.forgetting(sqlSessions);
  if (config.usersFile) {
    // A changed users file (or SIGHUP) brings in the people it names for the first time; a
    // person already imported is changed in Card Console (People, or `pnpm users`), not here.
    const watcher = watchUsersFile({
      directory: {
        replaceUsers: async (list) => {
          toImport = list;
          // Not imported yet: the first need of people imports this list.
          if (!importing) return;
          const { added } = await (await importedPeople()).importUsers(list);
          if (added.length > 0)
            logger.info({ added: added.length }, 'people imported from the users file');
        },
        counts: () => users.counts(),
      },
      file: config.usersFile,
      logger,
      metrics,
    });
    closers.push(async () => watcher.close());
  }

  // The trail's head (id and hash, never a record) in the log each hour: kept outside the
  // database, it shows records cut from the trail's end (platform/audit/audit-head.ts).
  const audit = postgres?.store ?? new JsonlAuditStore(config.dataDir, systemClock);
  closers.push(logHeadEvery({ source: audit, logger }));

  // Aborted when the shutdown's grace period ends: exports still running cut their download.
  const cutOff = new AbortController();
  // Background work the replicas share (the index's syncs), in the jobs' table: a read asks for
  // a job and runs it when free; every replica's worker takes what is due, and a killed
  // replica's once its lease lapses. Started with the app, stopped (handing back) before the
  // database closes; the worker leaves the embedded engine closed until its first use.
  const backgroundJobs = createBackgroundJobs({
    sql: stores.sql,
    isOpen: () => databaseUrl !== undefined || stores.isOpen(),
    clock: systemClock,
    cutOff: cutOff.signal,
    logger,
  });
  // The receipt inbox, made here so that the mail listener hands its messages to the same one.
  const receiptReader = lazyReceiptReader(logger);
  closers.push(() => receiptReader.close());
  const receiptInbox = createReceiptInboxService({
    upstream,
    audit,
    clock: systemClock,
    logger,
    stores,
    backgroundJobs,
    receiptReader,
    receiptMailDomain: config.receiptMail?.domain,
  });
  if (config.receiptMail) {
    const { startReceiptMail } = await import('./features/receipt-inbox/email/receipt-mail-server');
    const mail = await startReceiptMail(
      config.receiptMail,
      receiptInbox,
      logger,
      shared?.rateLimiters,
    );
    logger.info({ port: mail.port }, 'receipt mail listener started');
    closers.push(() => mail.close());
  }
  // The cards' names for every list: walked now, in the background, so the first list after a
  // start is not held for it (a list waits up to 2 s for a directory never filled; against a
  // card service 300 ms away, the first Transactions answer after sign-in took 2 s for it).
  const cardDirectory = createCardDirectory({
    listPage: upstreamCardPages(upstream),
    clock: systemClock,
    logger,
  });
  const app = createApp({
    config,
    upstream,
    cardDirectory,
    users,
    sessionStore: shared?.sessionStore ?? new MemorySessionStore(systemClock),
    ...(shared && {
      rateLimiters: shared.rateLimiters,
      usedCodes: shared.usedCodes,
      locks: shared.locks,
      exportSlots: shared.exportSlots,
      exportReceipts: shared.exportReceipts,
      challengeStore: shared.challengeStore,
      ssoPendingStore: shared.ssoPendingStore,
      dayAggregates: shared.dayAggregates,
    }),
    factorStore,
    ...(relyingParty ? { relyingParty } : {}),
    audit,
    clock: systemClock,
    logger,
    metrics,
    readiness,
    isDraining: () => shutdown.draining,
    cutOff: cutOff.signal,
    stores,
    backgroundJobs,
    receiptInbox,
    people: { store: peopleStore, sessions: personSessions },
    sessionRegistry: personSessions,
    // Alerts come though nobody reads: the open days are read again while a rule is on.
    openDaysRefresh: {
      everyMs: config.alertRefreshMs,
      engineOpen: () => databaseUrl !== undefined || stores.isOpen(),
    },
  });

  // Alert email and webhooks: the outbox's worker, stopped before the index closes.
  const { createAlertDeliveryWorker } = await import('./features/alerts/alert-delivery-worker');
  const alertDelivery = createAlertDeliveryWorker({
    config,
    stores,
    teamRecipients: () => users.emails(),
    clock: systemClock,
    logger,
    // The worker leaves the embedded engine closed until its first use opens it.
    indexOpen: () => databaseUrl !== undefined || stores.isOpen(),
    metrics,
  });
  alertDelivery.start().catch((error: unknown) => {
    logger.error({ err: error }, 'alert delivery did not start: alerts reach the inbox only');
  });
  closers.push(() => alertDelivery.stop());
  backgroundJobs.start().catch((error: unknown) => {
    logger.error({ err: error }, 'background jobs did not start: reads run the syncs they ask for');
  });
  closers.push(() => backgroundJobs.stop());

  const server = http.createServer({ requestTimeout: 60_000, headersTimeout: 20_000 }, app);
  server.keepAliveTimeout = 5_000;
  answerClientErrors(server);
  const shutdown = createGracefulShutdown({
    server,
    graceMs: config.shutdownGraceMs,
    logger,
    closers,
    cutOff,
  });
  // Drain, then exit 0: the shutdown was asked for and carried out (what was cut is logged).
  // A second signal cuts what is still running at once.
  const stop = (signal: string) => void shutdown.begin(signal).then(() => process.exit(0));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  // The people store opens and brings in the users file's people now, in the background: in
  // demo mode so the first sign-in does not wait for the embedded engine (seconds to open the
  // first time), and with PostgreSQL so the people are there for `pnpm users` and the People
  // screen as soon as a replica starts, not at a first sign-in. The embedded engine in production
  // opens at its first need (/readyz asks for it), keeping a fresh server one process until then.
  if (config.mode === 'demo' || databaseUrl) void importedPeople().catch(() => {});
  // Its first walk starts now (a failure is logged and tried again at the next read).
  void cardDirectory.ready();
  if (config.metrics) {
    const scrape = await startMetricsServer({ registry, ...config.metrics, logger });
    closers.push(scrape.close);
    logger.info({ metrics: `${scrape.url}/metrics` }, 'Prometheus metrics are served');
  }
  const port = (server.address() as { port: number }).port;
  logger.info(
    {
      mode: config.mode,
      upstream: demo ? 'in-process simulator' : baseUrl,
      listening: `http://${config.host}:${port}`,
      // How people sign in (a key named "password" would be redacted from the log).
      signIn: [
        ...(config.mode === 'demo' || config.usersFile !== undefined ? ['users file'] : []),
        ...(relyingParty ? ['single sign-on'] : []),
      ],
      ...(relyingParty
        ? { sso: { issuer: relyingParty.issuer, ...relyingParty.discoveryState() } }
        : {}),
    },
    `Card Console (${config.mode}) is up: open ${shownOrigin(config, port)}`,
  );
}

/**
 * Where a person opens Card Console: the public origin when one is configured (behind a proxy
 * only that origin can sign in; any other is refused as `bad_origin`), else the local address.
 */
function shownOrigin(config: Config, port: number): string {
  if (config.publicOrigin !== `http://localhost:${config.port}`) return config.publicOrigin;
  const host = config.host === '0.0.0.0' || config.host === '127.0.0.1' ? 'localhost' : config.host;
  return `http://${host}:${port}`;
}
