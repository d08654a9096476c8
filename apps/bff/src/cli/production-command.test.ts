// The production command docs/operations.md gives, run as a process manager would run it: one
// node process that gets the signals and writes only JSON lines on stdout. And `pnpm start`, the demo's
// command, refusing a bad variable before it builds anything.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CardService, createCardService } from '@card-console/card-service-sim';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoScrypt } from '../platform/users/password-hash';
import { freePort } from '../test/engines/free-port';
import { addUser } from './add-user';

const bffDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const repoRoot = join(bffDir, '..', '..');
const tsx = join(bffDir, 'node_modules', '.bin', 'tsx');

/** `NAME=value … node --flag … path/to/index.js` as words: its environment, flags and entry. */
function parseCommand(line: string) {
  const words = line.trim().split(/\s+/);
  const nodeAt = words.indexOf('node');
  return {
    env: Object.fromEntries(words.slice(0, nodeAt).map((w) => w.split('=') as [string, string])),
    flags: words.slice(nodeAt + 1, -1),
    entry: words.at(-1) ?? '',
  };
}

/** The one production command in docs/operations.md's sh blocks. */
function documentedCommand() {
  const readme = readFileSync(join(repoRoot, 'docs', 'operations.md'), 'utf8');
  const lines = readme.split('\n').filter((line) => /^(\S+=\S+ )*node .*\.js$/.test(line.trim()));
  expect(lines).toHaveLength(1);
  return parseCommand(lines[0] ?? '');
}

const processes: ChildProcess[] = [];
afterEach(() => {
  for (const child of processes.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      // Each was started as its own group: end it and anything it started.
      process.kill(-child.pid, 'SIGKILL');
    }
  }
});

function run(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  processes.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Waits (a hang guard, not a timing bound) until `condition` holds. */
async function until(condition: () => boolean | Promise<boolean>, what: string, output = '') {
  for (let i = 0; i < 600; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}\n${output}`);
}

describe('the production command', () => {
  it("is the BFF's serve script, run from the repository root", () => {
    const pkg = JSON.parse(readFileSync(join(bffDir, 'package.json'), 'utf8'));
    const serve = parseCommand(pkg.scripts.serve);
    expect(serve.entry).toBe('dist/index.js');
    expect(documentedCommand()).toEqual({ ...serve, entry: 'apps/bff/dist/index.js' });
  });

  it('has a demo twin: `pnpm start` serves the demo entry point with the same settings', () => {
    const pkg = JSON.parse(readFileSync(join(bffDir, 'package.json'), 'utf8'));
    const root = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    const serve = parseCommand(pkg.scripts.serve);
    expect(parseCommand(pkg.scripts['serve:demo'])).toEqual({ ...serve, entry: 'dist/demo.js' });
    expect(root.scripts.start).toMatch(/&& pnpm --filter @card-console\/bff serve:demo$/);
    expect(pkg.scripts.start).toMatch(/&& pnpm run serve:demo$/);
  });

  describe('run as one node process', () => {
    // The bundle `pnpm build` makes, built into a folder of this test's own (dist/ may be
    // rebuilt by a `pnpm start` elsewhere meanwhile); under node_modules so that npm
    // packages resolve from it exactly as from dist/.
    const outdir = join(bffDir, 'node_modules', '.cache', `bundle-test-${process.pid}`);
    const dir = mkdtempSync(join(tmpdir(), 'bff-production-'));
    const apiKey = `key-${process.pid}-${Date.now()}`;
    const password = 'a long enough password';
    let sim: CardService;
    let simUrl: string;
    let usersFile: string;

    beforeAll(async () => {
      const built = spawnSync(tsx, ['src/cli/bundle.ts', '--outdir', outdir], {
        cwd: bffDir,
        encoding: 'utf8',
      });
      if (built.status !== 0) throw new Error(`bundle failed: ${built.stderr}${built.stdout}`);
      sim = createCardService({ apiKey, transactions: 20 });
      simUrl = (await sim.listen(0, '127.0.0.1')).url;
      usersFile = join(dir, 'etc', 'users.json');
      await mkdir(dirname(usersFile));
      await addUser({
        file: usersFile,
        email: 'pat@example.test',
        role: 'finance',
        password,
        scrypt: demoScrypt,
      });
      await writeFile(join(dir, 'index.html'), '<!doctype html><title>Card Console</title>');
    }, 120_000);
    afterAll(async () => {
      await sim?.close();
      rmSync(outdir, { recursive: true, force: true, maxRetries: 5 });
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    });

    const start = (env: Record<string, string>) => {
      const command = documentedCommand();
      return run(process.execPath, [...command.flags, join(outdir, 'index.js')], {
        ...command.env,
        DATA_DIR: join(dir, 'data'),
        WEB_DIST: dir,
        ...env,
      });
    };

    it('refuses a bad variable at once, naming it on stderr, with nothing on stdout', async () => {
      const bff = start({ PORT: 'eighty', SHUTDOWN_GRACE_SECONDS: 'soon' });
      expect((await bff.exited).code).toBe(1);
      expect(bff.stderr()).toContain('PORT:');
      expect(bff.stderr()).toContain('SHUTDOWN_GRACE_SECONDS:');
      expect(bff.stdout()).toBe('');
    });

    it('without its configuration refuses to start, naming what is missing; never demo mode', async () => {
      for (const env of [
        {} as Record<string, string>,
        { CARD_API_BASEURL: 'https://cards.example.com', HOST: '0.0.0.0' },
      ]) {
        const bff = start(env);
        expect((await bff.exited).code).toBe(1);
        for (const name of [
          'CARD_API_BASE_URL:',
          'CARD_API_KEY:',
          'SESSION_SECRET:',
          'PUBLIC_ORIGIN:',
        ])
          expect(bff.stderr()).toContain(name);
        expect(bff.stderr()).toContain('DEMO_MODE=1');
        expect(bff.stdout()).toBe('');
      }
    });

    it('in production: serves, writes only JSON lines, reloads its users on a change and on SIGHUP, and exits on SIGTERM', async () => {
      const port = await freePort();
      const origin = 'https://cards.example.test';
      const bff = start({
        CARD_API_BASE_URL: simUrl,
        CARD_API_KEY: apiKey,
        USERS_FILE: usersFile,
        SESSION_SECRET: 'a'.repeat(16) + 'b'.repeat(16) + 'c'.repeat(8),
        TOTP_ENCRYPTION_KEY: 'd'.repeat(64),
        PUBLIC_ORIGIN: origin,
        PORT: String(port),
        LOG_LEVEL: 'info',
      });
      const out = () => `${bff.stdout()}\n${bff.stderr()}`;
      await until(() => /is up/.test(bff.stdout()), 'the start-up line', out());
      const lines = () =>
        bff
          .stdout()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines().find((l) => /is up/.test(`${l.msg}`))?.msg).toContain(`open ${origin}`);

      // One process: node itself, with no child of its own.
      const pid = bff.child.pid ?? 0;
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]).toBe(process.execPath);
      const children = readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .filter((name) => {
          try {
            return (
              readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] ===
              String(pid)
            );
          } catch {
            return false; // ended meanwhile
          }
        });
      // Named by their command line, so a failure says what was started.
      const commandOf = (child: string) => {
        try {
          return readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
        } catch {
          return `${child} (ended)`;
        }
      };
      expect(children.map(commandOf)).toEqual([]);

      const base = `http://127.0.0.1:${port}`;
      const signIn = (email: string) =>
        fetch(`${base}/api/session`, {
          method: 'POST',
          headers: { 'X-CSRF': '1', Origin: origin, 'Content-Type': 'application/json' },
          body: JSON.stringify({ email, password }),
        }).then((res) => res.status);
      expect(await signIn('pat@example.test')).toBe(200);
      expect((await fetch(`${base}/cards`, { headers: { Accept: 'text/html' } })).status).toBe(200);
      expect((await fetch(`${base}/metrics`)).status).toBe(404);

      // Added while it runs: signs in without a restart.
      await addUser({
        file: usersFile,
        email: 'late@example.test',
        role: 'finance',
        password,
        scrypt: demoScrypt,
      });
      await until(async () => (await signIn('late@example.test')) === 200, 'late signs in', out());

      // SIGHUP re-reads the file even though nothing changed (node's default would end it).
      // A reload after the SIGHUP line: the change above may still log its own reload meanwhile
      // (a clean-clone run counted that one as the signal's, before the SIGHUP line was read).
      const reloadedAfterSignal = () => {
        const all = lines();
        const signalled = all.findIndex((l) => /^SIGHUP/.test(`${l.msg}`));
        return signalled >= 0 && all.slice(signalled).some((l) => l.msg === 'users file reloaded');
      };
      bff.child.kill('SIGHUP');
      await until(reloadedAfterSignal, 'SIGHUP reloads', out());
      expect(lines().filter((l) => /^SIGHUP/.test(`${l.msg}`))).toHaveLength(1);
      expect(lines().findLast((l) => l.msg === 'users file reloaded')).toMatchObject({ users: 2 });

      bff.child.kill('SIGTERM');
      expect(await bff.exited).toEqual({ code: 0, signal: null });
      const stdout = bff.stdout().split('\n').filter(Boolean);
      expect(stdout.length).toBeGreaterThan(5);
      for (const line of stdout) expect(() => JSON.parse(line)).not.toThrow();
      expect(bff.stderr()).toBe('');
      expect(bff.stdout()).not.toContain(apiKey);
    }, 120_000);
  });
});

describe('pnpm start', () => {
  it('stops on a bad variable before building anything, naming it', async () => {
    // Run as a person would: Vitest's NODE_ENV=test is not in a person's environment.
    const start = run('npx', ['-y', 'pnpm@10.34.9', 'start'], {
      PORT: 'eighty',
      ...(process.env.npm_config_cache ? { npm_config_cache: process.env.npm_config_cache } : {}),
      // The machine's certificate authorities, as a person's shell has them: without them npx
      // on a Node with its own bundled list waits over a minute on the registry before it
      // falls back to its cache.
      ...(process.env.NODE_EXTRA_CA_CERTS
        ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS }
        : {}),
    });
    const { code } = await start.exited;
    const output = `${start.stdout()}\n${start.stderr()}`;
    expect(code).not.toBe(0);
    expect(output).toContain('PORT:');
    // Demo mode is what `pnpm start` asks for: nothing production needs is missing.
    expect(output).not.toContain('CARD_API_BASE_URL');
    // Neither Vite's build nor the bundle ran.
    expect(output).not.toMatch(/vite|building|bundle\.ts/i);
  }, 120_000);
});
