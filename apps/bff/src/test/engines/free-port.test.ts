// The port the tests' servers start on is free and outside the kernel's range for outgoing
// connections, so no connection of a test running beside one takes it before the server binds.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralPorts, freePort } from './free-port';

describe('freePort', () => {
  it('gives ports nothing listens on, below the range outgoing connections take theirs from', async () => {
    const { low } = ephemeralPorts();
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(low);
    }
    // Each can be listened on.
    for (const port of ports.slice(0, 3)) {
      await new Promise<void>((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
      });
    }
  });
});
