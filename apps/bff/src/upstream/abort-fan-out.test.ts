// Many upstream calls sharing one caller's AbortSignal (a limit preview's 16 reads, every
// background walk carrying the shutdown's cut-off) hold one listener on it between them: no
// MaxListenersExceededWarning under load, and an abort still reaches every one of them.
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { abortableSleep } from '../platform/abort-fan-out';
import { captureLogs, ctx } from '../test/upstream-client';
import { createUpstreamClient } from './client';

const AT_ONCE = 16; // a limit preview: 4 sub accounts × 4 walks, over Node's 10

/** A card service that holds every request until told to answer. */
async function holdingService() {
  const held: http.ServerResponse[] = [];
  let arrived: () => void = () => {};
  const all = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const server = http.createServer((_req, res) => {
    held.push(res);
    if (held.length === AT_ONCE) arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Resolves once AT_ONCE requests are waiting. */
    allArrived: all,
    answerAll() {
      for (const res of held) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"items":[],"metadata":{}}');
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const warnings: Error[] = [];
const onWarning = (warning: Error) => void warnings.push(warning);
beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(() => void process.off('warning', onWarning));

/** Node emits its warnings on a later tick: let them arrive before looking. */
const warningsSoFar = async () => {
  await new Promise((resolve) => setImmediate(resolve));
  return warnings.filter((w) => w.name === 'MaxListenersExceededWarning');
};

describe('one caller signal shared by many upstream calls', () => {
  it(`${AT_ONCE} reads in flight on one signal hold one listener on it, and all finish`, async () => {
    const service = await holdingService();
    const client = createUpstreamClient({
      baseUrl: service.url,
      apiKey: 'k',
      logger: captureLogs().logger,
      connections: AT_ONCE,
    });
    const caller = new AbortController();
    const calls = Array.from({ length: AT_ONCE }, (_, i) =>
      client.listTransactions(
        { ...ctx('finance', `r${i}`), signal: caller.signal },
        { subAccountId: `sub_${i}` },
      ),
    );
    await service.allArrived;
    expect(getEventListeners(caller.signal, 'abort').length).toBeLessThanOrEqual(1);
    service.answerAll();
    expect(await Promise.all(calls)).toHaveLength(AT_ONCE);
    expect(await warningsSoFar()).toEqual([]);
    await client.close();
    await service.close();
  });

  it('an abort still ends every read in flight on it, as 499 client_closed', async () => {
    const service = await holdingService();
    const client = createUpstreamClient({
      baseUrl: service.url,
      apiKey: 'k',
      logger: captureLogs().logger,
      connections: AT_ONCE,
    });
    const caller = new AbortController();
    const calls = Array.from({ length: AT_ONCE }, (_, i) =>
      client
        .listTransactions(
          { ...ctx('finance', `r${i}`), signal: caller.signal },
          { subAccountId: `sub_${i}` },
        )
        .catch((error: unknown) => error),
    );
    await service.allArrived;
    caller.abort();
    for (const outcome of await Promise.all(calls)) {
      expect(outcome).toMatchObject({ status: 499, code: 'client_closed' });
    }
    await client.close();
    await service.close();
  });

  it(`${AT_ONCE} waits on one signal (bulk calls held back) hold one listener on it, and an abort ends them all`, async () => {
    const caller = new AbortController();
    const waits = Array.from({ length: AT_ONCE }, () =>
      abortableSleep(60_000, caller.signal).then(
        () => 'slept',
        () => 'cut',
      ),
    );
    expect(getEventListeners(caller.signal, 'abort').length).toBeLessThanOrEqual(1);
    caller.abort();
    expect(await Promise.all(waits)).toEqual(Array(AT_ONCE).fill('cut'));
    expect(await warningsSoFar()).toEqual([]);
  });

  it('a wait on a signal already aborted ends at once; one without a signal sleeps', async () => {
    const caller = new AbortController();
    caller.abort();
    await expect(abortableSleep(60_000, caller.signal)).rejects.toBeDefined();
    await expect(abortableSleep(1)).resolves.toBeUndefined();
  });
});
