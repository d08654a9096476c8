import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { freePort } from '../../../bff/src/test/engines/free-port';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A new embedded cluster's directory, made by the global set-up, to copy from. */
    embeddedCluster: string;
    /** A folder for the run's scratch files, removed when the run ends. */
    scratchDir: string;
  }
}

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const webDist = join(repoRoot, 'apps/web/dist');

/**
 * How a pnpm command runs: under `pnpm test` (npm_execpath names pnpm), with that pnpm directly;
 * otherwise through npx, as the README's commands do. npx's own start, resolving pnpm@10.34.9
 * again, cost 3–5 s of CPU for each product a CI run starts.
 */
export function pnpmCommand(args: string[]): [string, string[]] {
  const pnpm = process.env.npm_execpath;
  if (pnpm && /pnpm\.c?js$/.test(pnpm)) return [process.execPath, [pnpm, ...args]];
  return ['npx', ['-y', 'pnpm@10.34.9', ...args]];
}

/**
 * The embedded engine's directory under a product's data directory (`transaction-index`), made
 * once for the run by the global set-up (build-once.ts) and copied into each product's data
 * directory: the product's first start makes one itself (PGlite's initdb in a child process,
 * 7–10 s of CPU), as the BFF's own tests of a first start (index.test.ts) still have it do.
 */
export const EMBEDDED_DIR = 'transaction-index';

export interface Running {
  url: string;
  port: number;
  /** Everything the process printed, to search for leaks and to show on failure. */
  output: () => string;
  stop: () => Promise<void>;
}

/** Runs a command in its own process group so stopping it stops all its children. */
function run(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; output: () => string } {
  return spawnGroup(...pnpmCommand(args), repoRoot, env);
}

function spawnGroup(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): { child: ChildProcess; output: () => string } {
  // Run it as a person would: Vitest's NODE_ENV=test would make Vite build React's dev bundle.
  const { NODE_ENV: _testEnv, ...inherited } = process.env;
  const child = spawn(command, args, {
    cwd,
    env: { ...inherited, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { child, output: () => text };
}

/**
 * The BFF as `pnpm start:built` runs it once the configuration is checked: the BFF's `serve:demo`
 * script (`VAR=value node <flags> dist/demo.js`), read from its package.json, run with this Node
 * directly. Three pnpm processes and `check-config` under tsx were ~5 s of CPU a product, which
 * a loaded CI machine turned into 10–20 s before each file's first test.
 */
function bffServe(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const bff = join(repoRoot, 'apps/bff');
  const scripts = JSON.parse(readFileSync(join(bff, 'package.json'), 'utf8')).scripts;
  const words = String(scripts['serve:demo']).split(/\s+/);
  // Demo mode unless `env` says otherwise, as `pnpm start` exports it.
  const scriptEnv: Record<string, string> = { DEMO_MODE: '1' };
  for (let word = words[0]; word && /^[A-Z_]+=/.test(word); word = words[0]) {
    const [name = '', ...value] = word.split('=');
    scriptEnv[name] = value.join('=');
    words.shift();
  }
  if (words.shift() !== 'node') throw new Error(`serve:demo is not a node command: ${words}`);
  return spawnGroup(process.execPath, words, bff, { ...scriptEnv, ...env });
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 10_000);
  await exited;
  clearTimeout(timer);
  await groupGone(child.pid);
}

/**
 * Waits until no process of the group is left (the BFF outlives pnpm by its drain), 10 s at
 * most, then kills what remains.
 */
async function groupGone(pid: number): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    try {
      process.kill(-pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
}

async function waitFor(
  url: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs: number,
  done: (response: Response) => Promise<boolean> = async (response) => response.ok,
) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(url);
      if (await done(response.clone())) return;
      last = `${response.status} ${await response.text()}`;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`no answer from ${url} within ${timeoutMs} ms (last: ${last}):\n${output()}`);
}

/** /readyz's answer (200 or 503) says the embedded database is open and its people are in. */
async function databaseReady(response: Response): Promise<boolean> {
  const body = (await response.json().catch(() => ({}))) as { checks?: Record<string, string> };
  return body.checks?.database === 'ok';
}

/** How a test starts the product: see `startProduct`. */
export interface StartOptions {
  /**
   * Through the README's command (`pnpm start:built`: `check-config`, then the BFF), as a person
   * starts it, rather than the BFF's serve script alone.
   */
  readme?: boolean;
  /**
   * The demo at its own size (`DEMO_TRANSACTIONS`' default, as `pnpm start` shows it) rather
   * than the e2e products' smaller one: for checks of figures at their full width.
   */
  fullDemo?: boolean;
}

/**
 * How many transactions the demo of an e2e product holds, unless a test says otherwise: a
 * quarter of the demo's default. Each product syncs them into its index after the first
 * sign-in: 20,000 rows cost the product ~9 s of CPU (5,000 ~3 s), paid by each of ~20 files on
 * a machine whose cores the run keeps busy. The flows need rows, pages and months of them, not
 * the volume, which the tests of the index at scale, the screens' full-width figures and the
 * benchmarks ask for themselves.
 */
const E2E_DEMO_TRANSACTIONS = '5000';

/**
 * The product from the build the e2e project's global setup made once (`build-once.ts`), on a
 * free port, with its own data directory: the BFF as the README's first command runs it
 * (`pnpm start`: checks the configuration, builds, runs the BFF's `serve:demo`), or the whole
 * command without its build (`pnpm start:built`) with `readme`. Demo mode unless `env` says
 * otherwise.
 */
export async function startProduct(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<Running> {
  // A port taken meanwhile by another process (it says EADDRINUSE) is tried again on another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startProductOnce(env, options);
    } catch (error) {
      if (attempt >= 3 || !/EADDRINUSE/.test((error as Error).message)) throw error;
    }
  }
}

async function startProductOnce(
  env: Record<string, string>,
  options: StartOptions,
): Promise<Running> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'card-console-e2e-'));
  cpSync(inject('embeddedCluster'), join(dataDir, EMBEDDED_DIR), { recursive: true });
  const url = `http://localhost:${port}`;
  const productEnv = {
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // The demo frozen: its figures are the ones each test reads, not a few more a minute
    // (a test of the living demo sets its own rate).
    DEMO_LIVE_PER_MINUTE: '0',
    ...(options.fullDemo ? {} : { DEMO_TRANSACTIONS: E2E_DEMO_TRANSACTIONS }),
    // Production mode requires the origin people open; here it is this loopback address.
    ...(env.CARD_API_BASE_URL ? { PUBLIC_ORIGIN: url } : {}),
    ...env,
  };
  const { child, output } = options.readme
    ? run(['start:built'], productEnv)
    : bffServe(productEnv);
  try {
    await waitFor(`${url}/healthz`, child, output, 240_000);
    // Ready for a first sign-in: the embedded engine's first open (initdb, seconds on the
    // server's thread, many more on a loaded machine) is done, not raced by the test's first step.
    await waitFor(`${url}/readyz`, child, output, 120_000, databaseReady);
  } catch (error) {
    await stopGroup(child);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  // Its data directory goes with it: each holds a copy of the embedded cluster and the index
  // (~140 MB), and a run starts about 25 products.
  const stop = async () => {
    await stopGroup(child);
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 3 });
  };
  return { url, port, output, stop };
}

/**
 * The standalone simulator (`pnpm sim`) with a key the test chooses; `env` adds to its
 * variables (`SIM_TEST_HOOKS: '1'` for its test route).
 */
export async function startSimulator(
  apiKey: string,
  env: Record<string, string> = {},
): Promise<Running> {
  const port = await freePort();
  const { child, output } = run(['sim'], {
    PORT: String(port),
    CARD_API_KEY: apiKey,
    SIM_TRANSACTIONS: '3000',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (!/listening on/.test(output())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopGroup(child);
      throw new Error(`simulator did not start:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, port, output, stop: () => stopGroup(child) };
}
