// Debian's haproxy in front of BFF replicas, as an operator runs it: TLS with a self-signed
// certificate made for the test, HTTP/2 and HTTP/1.1 offered by ALPN, round-robin, health
// checks on /readyz, and idempotent requests retried on another replica when one dies.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitForPort } from './free-port';

const run = promisify(execFile);
const binary = process.env.HAPROXY_PATH ?? '/usr/sbin/haproxy';

export interface Balancer {
  /** `https://localhost:PORT` (`http://127.0.0.1:PORT` without TLS): the public origin people use. */
  readonly origin: string;
  readonly port: number;
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

/** `pem` absent: plain HTTP/1.1 (a benchmark's choice, so TLS is not what it measures). */
export function haproxyConfig(options: {
  port: number;
  pem?: string | undefined;
  backends: number[];
  /** One line per request on stderr, with haproxy's termination state (e.g. `SD--`). */
  accessLog?: boolean;
}): string {
  const servers = options.backends.map(
    (port, i) => `  server bff${i + 1} 127.0.0.1:${port} check inter 500ms fall 2 rise 1`,
  );
  return [
    'global',
    `  log stderr format raw local0 ${options.accessLog ? 'info' : 'warning'}`,
    'defaults',
    '  mode http',
    '  log global',
    ...(options.accessLog ? ['  option httplog'] : []),
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  retries 2',
    '  option redispatch',
    // A GET whose replica died before answering goes to the other one.
    '  retry-on conn-failure empty-response response-timeout 502 503',
    'frontend public',
    ...(options.pem
      ? [
          `  bind 127.0.0.1:${options.port} ssl crt ${options.pem} alpn h2,http/1.1`,
          '  http-request set-header X-Forwarded-Proto https',
        ]
      : [`  bind 127.0.0.1:${options.port}`, '  http-request set-header X-Forwarded-Proto http']),
    '  default_backend bff',
    'backend bff',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  option forwardfor',
    ...servers,
    '',
  ].join('\n');
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
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, haproxyConfig({ port, pem, backends, accessLog: options.accessLog }));
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
    log,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
