import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, repoRoot, startTs } from './child';
import { freePort, waitForOk } from './free-port';

const tsxBin = join(repoRoot, 'bench', 'node_modules', '.bin', 'tsx');
export const benchPassword = 'bench-password-1';

export interface RunningBff {
  url: string;
  child: Child;
  /** The users file it reads (another `startBff` may be given it: replicas share people). */
  usersFile: string;
  /**
   * Signs a finance person in and returns the Cookie header value; `via`: the public origin to
   * sign in through (a load balancer in front), default this replica's own.
   */
  signIn(email?: string, via?: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * How production runs the BFF, read from apps/bff/package.json's `serve` script
 * (`NAME=value … node --flag … dist/index.js`), so the benchmark cannot drift from it;
 * `serve:demo`: how `pnpm start` runs it in demo mode (the same, on dist/demo.js).
 */
export function bffServeCommand(script: 'serve' | 'serve:demo' = 'serve'): {
  env: Record<string, string>;
  nodeArgs: string[];
  entry: string;
} {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'apps', 'bff', 'package.json'), 'utf8'));
  const words = String(pkg.scripts[script]).split(/\s+/).filter(Boolean);
  const nodeAt = words.indexOf('node');
  const entry = words.at(-1);
  if (nodeAt < 0 || !entry?.endsWith('.js'))
    throw new Error(`unexpected ${script} script: ${pkg.scripts[script]}`);
  const env = Object.fromEntries(
    words.slice(0, nodeAt).map((w) => {
      const eq = w.indexOf('=');
      return [w.slice(0, eq), w.slice(eq + 1)];
    }),
  );
  return { env, nodeArgs: words.slice(nodeAt + 1, -1), entry: `apps/bff/${entry}` };
}

/** Builds the bundle `pnpm start` runs (apps/bff/src/cli/bundle.ts). */
export function buildBff(): void {
  const result = spawnSync(tsxBin, ['apps/bff/src/cli/bundle.ts'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`BFF build failed: ${result.stderr}${result.stdout}`);
}

/** Writes a users file with the product's own CLI, as an operator would. */
function writeUsersFile(emails: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'cc-bench-'));
  const file = join(dir, 'users.json');
  for (const email of emails) {
    const result = spawnSync(
      tsxBin,
      ['apps/bff/src/cli/users.ts', 'add', '--email', email, '--role', 'finance', '--file', file],
      { cwd: repoRoot, input: `${benchPassword}\n`, encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(`users add failed: ${result.stderr}${result.stdout}`);
  }
  return file;
}

/** Starts the real BFF in production mode against a given upstream. */
export async function startBff(options: {
  upstreamUrl: string;
  apiKey: string;
  people?: number;
  env?: Record<string, string>;
  nodeArgs?: string[];
  /** What to run, relative to the repo root (default: the bundle, built first, as `pnpm start`). */
  entry?: string;
  /** `false`: run the bundle an earlier `startBff` built (replicas of one build). */
  build?: boolean;
  /** An earlier `startBff`'s users file, with the same `people` (writing one costs a process each). */
  usersFile?: string;
}): Promise<RunningBff> {
  if (!options.entry && options.build !== false) buildBff();
  const serve = bffServeCommand();
  const nodeArgs = [...(options.entry ? [] : serve.nodeArgs), ...(options.nodeArgs ?? [])];
  const emails = Array.from({ length: options.people ?? 1 }, (_, i) => `bench${i}@example.test`);
  const usersFile = options.usersFile ?? writeUsersFile(emails);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = await startTs(options.entry ?? serve.entry, {
    env: {
      ...(options.entry ? {} : serve.env),
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_ORIGIN: origin,
      CARD_API_BASE_URL: options.upstreamUrl,
      CARD_API_KEY: options.apiKey,
      USERS_FILE: usersFile,
      SESSION_SECRET: 'bench-session-secret-0123456789abcdef',
      TOTP_ENCRYPTION_KEY: 'YmVuY2gtdG90cC1lbmNyeXB0aW9uLWtleS0wMTIzNDU=',
      // Its own, also when it shares the users file: replicas do not share a disk.
      DATA_DIR: mkdtempSync(join(tmpdir(), 'cc-bench-data-')),
      LOG_LEVEL: 'info',
      API_RATE_LIMIT_PER_MINUTE: '100000000',
      ...options.env,
    },
    ready: /./,
    ...(nodeArgs.length ? { nodeArgs } : {}),
  });
  await waitForOk(`${origin}/healthz`);
  return {
    url: origin,
    child,
    usersFile,
    async signIn(email = emails[0] as string, via = origin) {
      const send = () =>
        fetch(`${via}/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf': '1', origin: via },
          body: JSON.stringify({ email, password: benchPassword }),
        });
      let res = await send();
      // Many people signing in at once meet the BFF's password-hashing cap (429 "busy",
      // Retry-After 1): wait as told and try again, as a person would, a bounded number of times.
      for (let tries = 1; res.status === 429 && tries < 10; tries++) {
        await res.arrayBuffer();
        await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
        res = await send();
      }
      if (!res.ok) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
      const cookie = res.headers.get('set-cookie');
      if (!cookie) throw new Error('sign-in set no cookie');
      return cookie.split(';')[0] as string;
    },
    stop: () => child.stop(),
  };
}

/** Waits until the BFF's `/readyz` answers 200 (the embedded engine open, when it has one). */
export async function databaseReady(url: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await fetch(`${url}/readyz`).then(
      async (r) => {
        await r.arrayBuffer();
        return r.status;
      },
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} was not ready within 120 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
