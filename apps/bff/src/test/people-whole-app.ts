// The whole app (createApp, as server.ts builds it) over a deployment's people in `index`,
// serving on loopback: what the People tests that need the real sign-in, sessions and second
// factors start, once per replica. The card service is never called (People, Security and
// signing in do not reach it).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import supertest from 'supertest';
import { createApp } from '../app';
import { type Config, loadConfig } from '../env';
import { SqlPersonDirectory } from '../features/people/sql-person-directory';
import { sqlPersonSessions } from '../features/people/sql-person-sessions';
import { lazyReceiptReader } from '../features/receipt-inbox/reading/lazy-reader';
import { JsonlAuditStore } from '../platform/audit/jsonl-audit-store';
import type { FactorStore } from '../platform/passkeys/factor-store';
import { TotpSecretBox } from '../platform/security/totp-secret-box';
import type { SessionStore } from '../platform/sessions/session-store';
import { openStores, type Stores } from '../stores';
import { createUpstreamClient } from '../upstream/client';
import { silentLogger } from './audit-cluster';
import { migratedMemoryEngine } from './engines/embedded';
import type { ManualClock } from './manual-clock';

/** A demo deployment's settings with its data in `dataDir` and a session secret of its own. */
export const demoConfigIn = (dataDir: string) =>
  loadConfig({
    DEMO_MODE: '1',
    DATA_DIR: dataDir,
    WEB_DIST: join(dataDir, 'no-web-dist'),
    SESSION_SECRET: randomBytes(32).toString('hex'),
  });

/** A deployment's stores on a new embedded engine, its secrets sealed with `config`'s keys. */
export const embeddedStoresFor = (config: Config) =>
  openStores({
    open: () => migratedMemoryEngine(),
    logger: silentLogger,
    totpSecrets: new TotpSecretBox(config.totpKeys),
  });

/** The people's sessions kept in `index`, as server.ts keeps them. */
export const peopleSessionsOf = (index: Stores, clock: ManualClock, config: Config) =>
  sqlPersonSessions({
    table: () => index.personSessions(),
    people: () => index.people(),
    clock,
    limits: config.session,
  });

/** Who signs in, read from `index`'s people (their sessions from `sessions`, or its own). */
export const peopleDirectoryOf = (
  index: Stores,
  sessions: Parameters<typeof SqlPersonDirectory.create>[0]['sessions'] = () =>
    index.personSessions(),
) => SqlPersonDirectory.create({ people: () => index.people(), sessions }, 'demo');

export interface PeopleAppOptions {
  config: Config;
  index: Stores;
  clock: ManualClock;
  /** Where this app's audit trail is written. */
  auditDir: string;
  sessionStore: SessionStore;
  factorStore: FactorStore;
  sessions: ReturnType<typeof sqlPersonSessions>;
  users: SqlPersonDirectory;
}

/** The app of `o`, listening on a free loopback port: its server and a client of it. */
export async function servePeopleApp(o: PeopleAppOptions) {
  // Inbox receipts are read by a child process started at the first file, ended with the server:
  // none outlives the file (a later file in this worker counts the reader's children).
  const receiptReader = lazyReceiptReader(silentLogger);
  const app = createApp({
    receiptReader,
    config: o.config,
    upstream: createUpstreamClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'unused',
      logger: silentLogger,
    }),
    users: o.users,
    sessionStore: o.sessionStore,
    factorStore: o.factorStore,
    audit: new JsonlAuditStore(o.auditDir, o.clock),
    clock: o.clock,
    logger: silentLogger,
    stores: o.index,
    people: { store: await o.index.people(), sessions: o.sessions },
    sessionRegistry: o.sessions,
  });
  const server = http.createServer(app);
  server.on('close', () => void receiptReader.close());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, api: supertest(`http://127.0.0.1:${(server.address() as AddressInfo).port}`) };
}
