// What a failed call tells people and operators, through the real client and simulator: the
// key alarm on 401, the upstream's Retry-After (or the default) on 429 and 503, and 499 when
// the browser went away.
import { describe, expect, it } from 'vitest';
import { ctx, testClient, useSimulator } from '../test/upstream-client';

const upstream = useSimulator();

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );

async function firstCardId(client: ReturnType<typeof testClient>['client']) {
  const card = (await client.listCards(ctx('admin'), {})).items[0];
  if (!card) throw new Error('the simulator has no cards');
  upstream.sim.stats.reset();
  return card.id;
}

describe('the key alarm', () => {
  it('an upstream 401 → 502 upstream_key_rejected and an error-level alarm, not retried', async () => {
    const { client, logs } = testClient(upstream.url);
    upstream.sim.faults.enqueue({ kind: 'status', status: 401 });
    expect(await failure(client.listCards(ctx(), {}))).toMatchObject({
      status: 502,
      code: 'upstream_key_rejected',
    });
    const alarm = logs.lines().find((line) => line.alarm === 'upstream_key_rejected');
    expect(alarm).toMatchObject({ level: 50, requestId: 'req-test-1' });
    expect(upstream.sim.stats.count('GET /card')).toBe(1);
    await client.close();
  });
});

describe('Retry-After on a write the service turned away (writes are never retried)', () => {
  it.each([429, 503])('%i with Retry-After: 7 → 503 with a hint of 7 seconds', async (status) => {
    const { client } = testClient(upstream.url);
    const id = await firstCardId(client);
    upstream.sim.faults.enqueue({ kind: 'status', status, retryAfter: '7', method: 'PATCH' });
    expect(await failure(client.updateCard(ctx('admin'), id, { name: 'Later' }))).toMatchObject({
      status: 503,
      code: 'upstream_unavailable',
      retryAfterSeconds: 7,
    });
    await client.close();
  });

  it.each([429, 503])('%i without Retry-After → 503 with a hint of 1 second', async (status) => {
    const { client } = testClient(upstream.url);
    const id = await firstCardId(client);
    upstream.sim.faults.enqueue({ kind: 'status', status, method: 'PATCH' });
    expect(await failure(client.updateCard(ctx('admin'), id, { name: 'Later' }))).toMatchObject({
      status: 503,
      code: 'upstream_unavailable',
      retryAfterSeconds: 1,
    });
    await client.close();
  });
});

describe('a call whose browser went away', () => {
  it('is not sent when the request was already cancelled: 499 client_closed', async () => {
    const { client } = testClient(upstream.url);
    const cancelled = new AbortController();
    cancelled.abort();
    const error = await failure(client.listCards({ ...ctx(), signal: cancelled.signal }, {}));
    expect(error).toMatchObject({ status: 499, code: 'client_closed' });
    expect(upstream.sim.stats.total()).toBe(0);
    await client.close();
  });

  it('ends with 499 client_closed, not a 502, when cancelled while the service answers', async () => {
    const { client } = testClient(upstream.url);
    upstream.sim.faults.enqueue({ kind: 'delay', ms: 3_000 });
    const cancel = new AbortController();
    const call = failure(client.listCards({ ...ctx(), signal: cancel.signal }, {}));
    // Cancel once the service has the request in hand.
    while (upstream.sim.stats.total() === 0) await new Promise((r) => setTimeout(r, 5));
    cancel.abort();
    expect(await call).toMatchObject({ status: 499, code: 'client_closed' });
    expect(upstream.sim.stats.count('GET /card')).toBe(1);
    await client.close();
  });
});
