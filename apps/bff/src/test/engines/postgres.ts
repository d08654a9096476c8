// A throw-away PostgreSQL cluster for tests and benchmarks: `initdb` in a temp directory,
// started on a free port with its socket in that directory, removed on `destroy`. PostgreSQL
// refuses to run as root, so as root the cluster belongs to the `postgres` user (runuser).
// Under Vitest each cluster is also listed in the run's registry (`postgres-reaper.setup.ts`),
// so one a file left running (its `afterAll` timed out, its worker ended) is stopped with the run.
import { execFile } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

const run = promisify(execFile);

export interface PostgresEngine {
  readonly port: number;
  /** A superuser URL to database `postgres`. */
  readonly adminUrl: string;
  /** A superuser URL to `database`. */
  urlFor(database: string, user?: string, password?: string): string;
  /** Creates an empty database and returns its superuser URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server fast (open connections are ended); `start` brings it back, data kept. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes the cluster's directory. */
  destroy(): Promise<void>;
}

/** Debian's PostgreSQL programs (the newest major installed), or POSTGRES_BIN_DIR. */
export function binDir(): string {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(base, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0]) {
    throw new Error(
      'No PostgreSQL under /usr/lib/postgresql: run `node scripts/ensure-engines.mjs` (pnpm test does) or set POSTGRES_BIN_DIR.',
    );
  }
  return join(base, versions[0], 'bin');
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL program, as the `postgres` user when this process is root. */
async function pg(program: string, args: string[]): Promise<void> {
  const path = join(binDir(), program);
  if (isRoot) await run('runuser', ['-u', 'postgres', '--', path, ...args]);
  else await run(path, args);
}

/**
 * The environment variable naming the folder where a test run lists the clusters its files
 * start (one file each, holding the cluster's folder), set by `postgres-reaper.setup.ts`.
 */
export const CLUSTER_REGISTRY_ENV = 'CARD_CONSOLE_TEST_CLUSTERS';

/**
 * Stops every cluster listed in `registry` whose server still runs (PostgreSQL's immediate
 * shutdown, SIGQUIT to its postmaster; SIGKILL if it has not ended within 5 s) and removes its
 * folder. Returns the folders of the servers it stopped.
 */
export async function reapClusters(registry: string): Promise<string[]> {
  const stopped: string[] = [];
  const entries = existsSync(registry) ? readdirSync(registry) : [];
  for (const entry of entries) {
    const dir = readFileSync(join(registry, entry), 'utf8');
    const pid = postmasterPid(dir);
    if (pid !== undefined && alive(pid)) {
      process.kill(pid, 'SIGQUIT');
      const deadline = Date.now() + 5_000;
      while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (alive(pid)) process.kill(pid, 'SIGKILL');
      stopped.push(dir);
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    rmSync(join(registry, entry), { force: true });
  }
  return stopped;
}

/** The running postmaster's process id, from the first line of its `postmaster.pid`. */
function postmasterPid(dir: string): number | undefined {
  const file = join(dir, 'data', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a fresh cluster (trust authentication, loopback only) on a free port, listed in
 * `registry` (by default the test run's, when there is one) until it is destroyed.
 */
export async function startPostgres({
  registry = process.env[CLUSTER_REGISTRY_ENV],
}: {
  registry?: string;
} = {}): Promise<PostgresEngine> {
  const dir = mkdtempSync(join(tmpdir(), 'cc-pg-'));
  const listed = registry ? join(registry, basename(dir)) : undefined;
  if (listed) writeFileSync(listed, dir);
  if (isRoot) {
    const { uid, gid } = await postgresIds();
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  await pg('initdb', [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  const urlFor = (database: string, user = 'postgres', password?: string) =>
    `postgres://${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ''}@127.0.0.1:${port}/${database}`;
  let running = false;
  const engine: PostgresEngine = {
    port,
    adminUrl: urlFor('postgres'),
    urlFor,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      await pg('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name]);
      return urlFor(name);
    },
    async start() {
      if (running) return;
      await pg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']);
      running = true;
    },
    async stop() {
      if (!running) return;
      await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    async destroy() {
      await engine.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
      if (listed) rmSync(listed, { force: true });
    },
  };
  await engine.start();
  return engine;
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
    run('id', ['-u', 'postgres']),
    run('id', ['-g', 'postgres']),
  ]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

let counter = 0;

/**
 * A fresh, empty database for a test file, as a superuser URL: in the cluster at
 * `TEST_DATABASE_URL` (a superuser URL) when set, otherwise in a cluster of its own.
 * `stop` removes a cluster this call started (a database in a given cluster is left).
 */
export async function testDatabase(): Promise<{
  url: string;
  engine?: PostgresEngine;
  stop(): Promise<void>;
}> {
  const name = `cc_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    const { default: pgLib } = await import('pg');
    const admin = new pgLib.Client({ connectionString: given });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    const url = new URL(given);
    url.pathname = `/${name}`;
    return { url: url.toString(), stop: async () => {} };
  }
  const engine = await startPostgres();
  return { url: await engine.createDatabase(name), engine, stop: () => engine.destroy() };
}
