// Debian's haproxy in front of BFF replicas, running the configuration operators deploy
// (deploy/haproxy/card-console.cfg, which compose.yaml mounts and docs/operations/replicas.md
// points to), read from that file itself so the two cannot drift: only the listening addresses,
// the certificate and the servers' ports are changed.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, waitForPort } from './free-port';

const run = promisify(execFile);
const binary = process.env.HAPROXY_PATH ?? '/usr/sbin/haproxy';
/** The shipped configuration, relative to the repository's root. */
export const HAPROXY_CONFIG_PATH = 'deploy/haproxy/card-console.cfg';
const shipped = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '..',
  '..',
  HAPROXY_CONFIG_PATH,
);

export interface Balancer {
  /** `https://localhost:PORT` (`http://127.0.0.1:PORT` without TLS): the public origin people use. */
  readonly origin: string;
  readonly port: number;
  /** `http://127.0.0.1:PORT`: the shipped config's port-80 listener, which only redirects (TLS only). */
  readonly plainOrigin?: string;
  /** haproxy's log lines so far (only with `accessLog`). */
  readonly log: string[];
  stop(): Promise<void>;
}

/** A self-signed certificate and key for `localhost`, in one PEM file as haproxy wants. */
async function selfSignedPem(dir: string): Promise<string> {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ]);
  const pem = join(dir, 'site.pem');
  writeFileSync(pem, readFileSync(cert, 'utf8') + readFileSync(key, 'utf8'), { mode: 0o600 });
  return pem;
}

/** The haproxy configuration operators deploy, as the file holds it. */
export function shippedHaproxyConfig(): string {
  return readFileSync(shipped, 'utf8');
}

/** Replaces the one line matching `pattern` (it must exist: a change to that page fails loudly). */
function replaceLine(config: string, pattern: RegExp, by: (line: string) => string[]): string {
  const lines = config.split('\n');
  const at = lines.findIndex((l) => pattern.test(l));
  if (at < 0) throw new Error(`${HAPROXY_CONFIG_PATH} has no line matching ${pattern}`);
  lines.splice(at, 1, ...by(lines[at] as string));
  return lines.join('\n');
}

/**
 * The shipped configuration on this machine: the https listener on `port` with `pem`, the
 * port-80 redirect on `plainPort`, and one server line per backend port on 127.0.0.1, shaped
 * like the file's first. `pem` absent (a benchmark's choice, so TLS is not what it measures):
 * one plain HTTP listener, without the redirect.
 */
export function haproxyConfig(options: {
  port: number;
  pem?: string | undefined;
  plainPort?: number;
  backends: number[];
}): string {
  let config = shippedHaproxyConfig();
  const { pem, port } = options;
  config = replaceLine(config, /^\s*bind :443 ssl crt \S+ /, (line) => [
    pem
      ? line.replace(/bind :443 ssl crt \S+/, `bind 127.0.0.1:${port} ssl crt ${pem}`)
      : line.replace(/bind :443 .*$/, `bind 127.0.0.1:${port}`),
  ]);
  config = replaceLine(config, /^\s*bind :80$/, (line) =>
    pem && options.plainPort ? [line.replace(':80', `127.0.0.1:${options.plainPort}`)] : [],
  );
  if (!pem) {
    config = replaceLine(config, /^\s*http-request redirect scheme https /, () => []);
    config = replaceLine(config, /X-Forwarded-Proto https$/, (line) => [
      line.replace(/https$/, 'http'),
    ]);
  }
  // One server line per backend, shaped like the file's first; its others are the same replicas.
  const server = /^(\s*)server bff\d+ 127\.0\.0\.1:\d+(.*)$/;
  const fileServers = config.split('\n').filter((l) => server.test(l));
  const [, indent, rest] = server.exec(fileServers[0] ?? '') ?? [];
  if (indent === undefined) throw new Error(`${HAPROXY_CONFIG_PATH} has no server line`);
  const servers = options.backends.map(
    (p, i) => `${indent}server bff${i + 1} 127.0.0.1:${p}${rest ?? ''}`,
  );
  return config
    .split('\n')
    .flatMap((l) => (l === fileServers[0] ? servers : server.test(l) ? [] : [l]))
    .join('\n');
}

/**
 * haproxy's health check in the shipped configuration: the path it asks for (`option httpchk
 * GET …`) and how many failed checks in a row take a server out (`fall`, default 3).
 */
export function healthCheck(config = shippedHaproxyConfig()): { path: string; fall: number } {
  const path = /^\s*option httpchk GET (\S+)/m.exec(config)?.[1];
  if (!path) throw new Error(`${HAPROXY_CONFIG_PATH} has no \`option httpchk GET\``);
  return { path, fall: Number(/\bfall (\d+)/.exec(config)?.[1] ?? 3) };
}

/**
 * Starts haproxy on `port` (default: a free one) in front of `backends` (ports on 127.0.0.1);
 * `tls: false` serves plain HTTP instead of TLS.
 */
export async function startHaproxy(
  backends: number[],
  port?: number,
  options: { tls?: boolean; accessLog?: boolean } = {},
): Promise<Balancer> {
  const dir = mkdtempSync(join(tmpdir(), 'cc-haproxy-'));
  const tls = options.tls ?? true;
  const pem = tls ? await selfSignedPem(dir) : undefined;
  port ??= await freePort();
  const plainPort = tls ? await freePort() : undefined;
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, haproxyConfig({ port, pem, plainPort, backends }));
  await run(binary, ['-c', '-q', '-f', file]);
  const child: ChildProcess = spawn(binary, ['-db', '-f', file], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const log: string[] = [];
  child.stderr?.on('data', (chunk) => {
    stderr = (stderr + String(chunk)).slice(-4000);
    if (options.accessLog) log.push(...String(chunk).split('\n').filter(Boolean));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForPort(port).catch((error: Error) => {
    throw new Error(`${error.message}\nhaproxy said: ${stderr}`);
  });
  return {
    origin: tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    port,
    ...(plainPort ? { plainOrigin: `http://127.0.0.1:${plainPort}` } : {}),
    log,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}
