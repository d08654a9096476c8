// The client's own redaction, seen through a logger that scrubs nothing: the key, its long
// pieces and card numbers from the card service never reach a caller or a log line.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { testPan } from '../test/test-pan';
import { captureLogs, ctx, TEST_API_KEY, testClient, useSimulator } from '../test/upstream-client';
import { createUpstreamClient } from './client';
import { translateFailure } from './translate-error';
import { createUpstreamRedactor } from './upstream-redactor';

const upstream = useSimulator();
const key = TEST_API_KEY;
const pan = testPan(21);
const masked = `•••• ${pan.slice(-4)}`;

/** Every piece of the key 8 characters long that `text` holds. */
function keyPiecesIn(text: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 8 <= key.length; i++) {
    if (text.includes(key.slice(i, i + 8))) found.push(key.slice(i, i + 8));
  }
  return found;
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e as Error & { code: string; status: number },
  );

async function rawServer(status: number, contentType: string, body: string): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('upstream errors that quote the key', () => {
  it('a 400 and a 422 echoing the key: the error and the log hold no piece of it', async () => {
    const { client, logs } = testClient(upstream.url);
    upstream.sim.faults.enqueue(
      { kind: 'echo-key', status: 400 },
      { kind: 'echo-key', status: 422, message: 'x-api-key {key} refused' },
      { kind: 'echo-key', status: 400, message: `bad key ${key.slice(2, 14)}` },
    );
    const errors = [
      await rejection(client.updateCard(ctx('admin'), 'card_1', { name: 'A' })),
      await rejection(client.updateCard(ctx('admin'), 'card_1', { name: 'B' })),
      await rejection(client.listCards(ctx(), {})),
    ];
    expect(errors.map((e) => [e.status, e.code])).toEqual([
      [400, 'upstream_rejected'],
      [400, 'upstream_rejected'],
      [400, 'upstream_rejected'],
    ]);
    expect(errors.map((e) => e.message)).toEqual([
      'the key [redacted] is not allowed for this program',
      'x-api-key [redacted] refused',
      'bad key [redacted]',
    ]);
    expect(logs.lines().filter((l) => l.msg === 'upstream rejected the request')).toHaveLength(3);
    expect(keyPiecesIn(logs.raw())).toEqual([]);
    await client.close();
  });

  it('a body that is not JSON, or an error that is not the documented shape, is logged without it', async () => {
    for (const [status, type] of [
      [200, 'text/plain'],
      [500, 'text/html'],
      [403, 'text/plain'],
    ] as const) {
      const server = await rawServer(status, type, `proxy: key=${key}; card ${pan}`);
      const logs = captureLogs();
      const client = createUpstreamClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        apiKey: key,
        logger: logs.logger,
        maxRetries: 0,
      });
      await rejection(client.listSubAccounts(ctx(), {}));
      expect(logs.raw(), `${status}`).toContain('proxy: key=[redacted]');
      expect(keyPiecesIn(logs.raw())).toEqual([]);
      expect(logs.raw()).not.toContain(pan);
      await client.close();
      server.close();
    }
  });

  it('a network error whose message quotes the key is logged without it', () => {
    const logs = captureLogs();
    const error = Object.assign(new Error(`socket hang up talking to ${key}`), {
      code: `E_${key}`,
    });
    const translated = translateFailure(
      { kind: 'network', error },
      {
        template: 'GET /card',
        requestId: 'req-1',
        logger: logs.logger,
        redact: createUpstreamRedactor(key),
      },
    );
    expect(translated).toMatchObject({ status: 502, code: 'upstream_unreachable' });
    expect(logs.raw()).toContain('socket hang up talking to [redacted]');
    expect(keyPiecesIn(logs.raw())).toEqual([]);
  });
});

describe('answers', () => {
  it('every free-text string of an answer arrives redacted; the reveal keeps its PAN and CVV', async () => {
    const { client, logs } = testClient(upstream.url);
    const real = upstream.sim.data.cards()[0]?.id ?? '';
    const card = {
      id: real,
      last4: pan.slice(-4),
      name: `Travel ${pan} for ${key}`,
      status: 'active',
      expiryMonth: '12',
      expiryYear: '2030',
      pan,
      cvv: '123',
      spendingConstraint: {
        spendingRule: { utilizationLimit: { preset: 'monthly', timezone: `tz ${key}` } },
      },
    };
    upstream.sim.faults.enqueue(
      { kind: 'body', body: card },
      { kind: 'body', body: card },
      { kind: 'body', body: { items: [card], metadata: { nextCursor: `c${key}` } } },
    );
    const plain = await client.getCard(ctx('admin'), real);
    const revealed = await client.getCard(ctx('admin'), real, { withSecrets: true });
    const page = await client.listCards(ctx('admin'), {});
    for (const c of [plain, revealed, page.items[0]]) {
      expect(c?.name).toBe(`Travel ${masked} for [redacted]`);
      expect(c?.spendingConstraint?.spendingRule?.utilizationLimit?.timezone).toBe('tz [redacted]');
    }
    // The reveal's own numbers are what it is for; the other answers' are dropped later.
    expect(revealed).toMatchObject({ pan, cvv: '123' });
    expect(page.metadata.nextCursor).toBe('c[redacted]');
    expect(logs.raw()).not.toContain(pan);
    await client.close();
  });

  it('transactions and sub accounts arrive redacted, in lists, details and the deferred walk', async () => {
    const { client } = testClient(upstream.url);
    const sub = upstream.sim.data.subAccounts()[0]?.id ?? '';
    const [txn] = upstream.sim.data.transactions(sub).filter((t) => t.merchantData);
    if (!txn) throw new Error('no card transaction in the test data');
    const text = {
      description: `refund to ${pan}`,
      merchantDescription: `SHOP ${key}`,
      declineReason: `card ${pan.match(/.{4}/g)?.join('-')} blocked`,
    };
    upstream.sim.testing.setTransactionText(txn.id, text);
    const expected = {
      description: `refund to ${masked}`,
      merchantData: { description: 'SHOP [redacted]' },
      declineReason: `card ${masked} blocked`,
      referenceNumber: txn.referenceNumber,
    };
    expect(await client.getTransaction(ctx(), txn.id)).toMatchObject(expected);
    const pageOf = async (deferred: boolean, cursor?: string) => {
      const params = { subAccountId: sub, ...(cursor ? { cursor } : {}) };
      if (!deferred) return client.listTransactions(ctx(), params);
      const page = await client.listTransactionsDeferred(ctx(), params);
      return { items: page.items(), metadata: page.metadata };
    };
    const find = async (deferred: boolean) => {
      let cursor: string | undefined;
      for (;;) {
        const page = await pageOf(deferred, cursor);
        const found = page.items.find((t) => t.id === txn.id);
        if (found || !page.metadata.nextCursor) return found;
        cursor = page.metadata.nextCursor;
      }
    };
    expect(await find(false)).toMatchObject(expected);
    expect(await find(true)).toMatchObject(expected);

    upstream.sim.faults.enqueue(
      { kind: 'body', body: { items: [{ id: 'sa_1', name: `Ops ${pan}` }], metadata: {} } },
      { kind: 'body', status: 201, body: { id: 'sa_2', name: `New ${key}` } },
    );
    expect((await client.listSubAccounts(ctx(), {})).items[0]?.name).toBe(`Ops ${masked}`);
    expect(await client.createSubAccount(ctx('admin'), { name: 'New' })).toEqual({
      id: 'sa_2',
      name: 'New [redacted]',
    });
    await client.close();
  });
});
