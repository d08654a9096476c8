import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now, below the range outgoing
 * connections take theirs from: a server started on it a moment later (PostgreSQL after its
 * `initdb`, the product after building the SPA) would otherwise find it taken by a connection
 * of a test running beside it, given that ephemeral port meanwhile (PostgreSQL then failed to
 * start with "could not bind … Address already in use" in a clean-clone run).
 */
export async function freePort(): Promise<number> {
  const { low } = ephemeralPorts();
  const from = 20_000;
  for (let tries = 0; tries < 50 && low > from; tries++) {
    const got = await tryPort(from + Math.floor(Math.random() * (low - from)));
    if (got !== undefined) return got;
  }
  const any = await tryPort(0);
  if (any === undefined) throw new Error('no free port');
  return any;
}

/** Listens on `port` (0: any) for a moment: the port it got, or undefined when it is taken. */
function tryPort(port: number): Promise<number | undefined> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const got = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => done(got));
    });
  });
}

/** The ports the kernel gives outgoing connections (Linux; its default elsewhere). */
export function ephemeralPorts(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (low && high) return { low, high };
  } catch {
    // not Linux
  }
  return { low: 32_768, high: 60_999 };
}

/** Resolves once something accepts TCP connections on `port`, or rejects after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs = 15_000): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline)
      throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
