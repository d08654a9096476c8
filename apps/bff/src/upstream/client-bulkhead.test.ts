// The bulk walks' bulkhead: however many walks read at once, they hold at most
// `bulkConcurrency` of the connections to the card service, so a person's read always finds
// one free instead of queueing behind them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { captureLogs, ctx } from '../test/upstream-client';
import { createUpstreamClient } from './client';

const PAGE = '{"items":[],"metadata":{}}';

/** A card service that holds every transaction list until told, and answers the rest at once. */
async function slowTransactions() {
  const held: http.ServerResponse[] = [];
  let most = 0;
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/transaction')) {
      held.push(res);
      most = Math.max(most, held.length);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => held.length,
    most: () => most,
    answerHeld() {
      for (const res of held.splice(0)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(PAGE);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const until = async (ready: () => boolean) => {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('the bulk walks’ bulkhead', () => {
  it('holds at most its share of the connections; a person’s read still goes through', async () => {
    const service = await slowTransactions();
    const client = createUpstreamClient({
      baseUrl: service.url,
      apiKey: 'k',
      logger: captureLogs().logger,
      connections: 4,
      bulkConcurrency: 2,
    });
    closers.push(service.close, () => client.close());
    const walks = Array.from({ length: 6 }, (_, i) =>
      client.listTransactions(
        { ...ctx('finance', `w${i}`), bulk: true },
        { subAccountId: `s${i}` },
      ),
    );
    await until(() => service.held() >= 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(service.held()).toBe(2);

    // Two connections are still free: a person's read is answered while the walks wait.
    expect(await client.listCards(ctx('admin'), {})).toMatchObject({ items: [] });

    // The walks go on two at a time as their answers come.
    let done = 0;
    for (const walk of walks) void walk.then(() => done++);
    while (done < walks.length) {
      service.answerHeld();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await Promise.all(walks)).toHaveLength(6);
    expect(service.most()).toBe(2);
  });

  it('does not hold people’s reads back: they use every connection', async () => {
    const service = await slowTransactions();
    const client = createUpstreamClient({
      baseUrl: service.url,
      apiKey: 'k',
      logger: captureLogs().logger,
      connections: 4,
      bulkConcurrency: 2,
    });
    closers.push(service.close, () => client.close());
    const reads = Array.from({ length: 4 }, (_, i) =>
      client.listTransactions(ctx('finance', `r${i}`), { subAccountId: `s${i}` }),
    );
    await until(() => service.held() === 4);
    service.answerHeld();
    expect(await Promise.all(reads)).toHaveLength(4);
  });
});
