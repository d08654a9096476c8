import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppDeps, createApp } from '../src/app';
import { systemClock } from '../src/core/clock';
import { loadConfig } from '../src/env';
import { JsonlAuditStore } from '../src/platform/audit/jsonl-audit-store';
import { createLogger } from '../src/platform/logger';
import { FileFactorStore } from '../src/platform/passkeys/file-factor-store';
import { MemorySessionStore } from '../src/platform/sessions/session-store';
import { demoAccounts, demoPassword } from '../src/platform/users/demo-accounts';
import { UserDirectory } from '../src/platform/users/user-directory';
import { createUpstreamClient } from '../src/upstream/client';

/** The real BFF app (demo accounts) in this process, pointed at an upstream URL. */
export async function startBffInProcess(
  upstreamUrl: string,
  apiKey: string,
  env: Record<string, string> = {},
  /** Stores and audit trail other than the embedded ones (PostgreSQL's, as DATABASE_URL opens). */
  deps: Pick<Partial<AppDeps>, 'stores' | 'audit'> = {},
) {
  const dataDir = await mkdtemp(join(tmpdir(), 'csv-bench-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    WEB_DIST: join(dataDir, 'none'),
    PORT: '0',
    LOG_LEVEL: 'warn',
    // Demo mode's accounts sign in; the card service is the one given.
    DEMO_MODE: '1',
    ...env,
  });
  const logLines: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void logLines.push(line) });
  const upstream = createUpstreamClient({ baseUrl: upstreamUrl, apiKey, logger });
  const app = createApp({
    config,
    upstream,
    users: await UserDirectory.demo(),
    sessionStore: new MemorySessionStore(systemClock),
    audit: deps.audit ?? new JsonlAuditStore(dataDir, systemClock),
    ...(deps.stores ? { stores: deps.stores } : {}),
    factorStore: await FileFactorStore.open(dataDir),
    clock: systemClock,
    logger,
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const base = { 'X-CSRF': '1', Origin: config.publicOrigin };

  return {
    url,
    /** Log lines that mention the CSV export (finished / stopped / failed). */
    exportLog: () => logLines.filter((l) => l.includes('csv export')),
    clearLog: () => void logLines.splice(0),
    async signIn(): Promise<Record<string, string>> {
      const finance = demoAccounts.find((a) => a.role === 'finance');
      const res = await fetch(`${url}/api/session`, {
        method: 'POST',
        headers: { ...base, 'content-type': 'application/json' },
        body: JSON.stringify({ email: finance?.email, password: demoPassword }),
      });
      if (res.status !== 200) throw new Error(`bench sign-in failed: ${res.status}`);
      const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      return { ...base, Cookie: cookie };
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await upstream.close();
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}
