// A BFF replica as its own node process, started the way production runs it (the bundle, one
// node process that receives the signals), with its JSON log lines captured for the test to read.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundled } from './bff-bundle';
import { freePort } from './free-port';

const bffDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * The variables a production deployment of one process sets (the card service and its key, the
 * users file, fresh secrets, the public origin, its data directory, no SPA build), for
 * `startBffProcess`; `more` adds to them or replaces one.
 */
export function productionEnv(
  given: {
    cardServiceUrl: string;
    apiKey: string;
    usersFile: string | undefined;
    origin: string;
    dataDir: string;
  },
  more: Record<string, string> = {},
): Record<string, string> {
  return {
    CARD_API_BASE_URL: given.cardServiceUrl,
    CARD_API_KEY: given.apiKey,
    USERS_FILE: given.usersFile ?? '',
    SESSION_SECRET: randomBytes(32).toString('hex'),
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PUBLIC_ORIGIN: given.origin,
    DATA_DIR: given.dataDir,
    WEB_DIST: join(given.dataDir, 'no-web-dist'),
    ...more,
  };
}

export interface BffProcess {
  readonly port: number;
  /** `http://127.0.0.1:PORT`, for calls that bypass the balancer. */
  readonly url: string;
  readonly pid: number;
  /** Every stdout line so far, parsed (a line that is not JSON is kept as `{ text }`). */
  readonly logs: Record<string, unknown>[];
  readonly stderr: string;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  readonly exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Starts production's entry point (`index.js` of the run's bundle, `bff-bundle.setup.ts`) with
 * `env` (plus PORT/HOST), and waits for /healthz. `port`:
 * listen there (a replica brought back where the balancer expects it); default a free one.
 * `onLine`: told of each log line as it comes, while it starts too.
 */
export async function startBffProcess(
  env: Record<string, string>,
  options: { port?: number; onLine?: (line: Record<string, unknown>) => void } = {},
): Promise<BffProcess> {
  const port = options.port ?? (await freePort());
  const child: ChildProcess = spawn(process.execPath, [bundled('index.js')], {
    cwd: bffDir,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  let partial = '';
  child.stdout?.on('data', (chunk) => {
    const text = partial + String(chunk);
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line) continue;
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(line) as Record<string, unknown>;
      } catch {
        parsed = { text: line };
      }
      logs.push(parsed);
      options.onLine?.(parsed);
    }
  });
  child.stderr?.on('data', (chunk) => {
    stderr = (stderr + String(chunk)).slice(-8000);
  });
  // 'close', not 'exit': once it has exited and its output is read to the end (the production
  // logger buffers its lines and writes the rest as the process exits).
  const exited = new Promise<number | string>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const done = await Promise.race([
      exited.then(() => true),
      new Promise((r) => setTimeout(r, 100)).then(() => false),
    ]);
    if (done)
      throw new Error(
        `the BFF exited while starting:\n${stderr}\n${JSON.stringify(logs.slice(-5))}`,
      );
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the BFF did not answer /healthz within 60 s:\n${stderr}`);
    }
  }
  return {
    port,
    url,
    pid: child.pid ?? -1,
    logs,
    get stderr() {
      return stderr;
    },
    exited,
    kill: (signal = 'SIGTERM') => {
      child.kill(signal);
    },
  };
}
