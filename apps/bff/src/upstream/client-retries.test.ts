import { describe, expect, it } from 'vitest';
import type { AppError } from '../core/app-error';
import { ctx, testClient, useSimulator } from '../test/upstream-client';

const upstream = useSimulator();

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!error) throw new Error('expected the call to fail');
  return error as AppError;
}

describe('reads retry and recover', () => {
  for (const status of [429, 502, 503, 504]) {
    it(`when the upstream answers ${status} twice, the list still loads`, async () => {
      const { client, sleeps } = testClient(upstream.url);
      upstream.sim.faults.enqueue({ kind: 'status', status }, { kind: 'status', status });
      const page = await client.listCards(ctx(), {});
      expect(page.items.length).toBeGreaterThan(0);
      expect(upstream.sim.stats.count('GET /card')).toBe(3);
      expect(sleeps).toHaveLength(2);
      await client.close();
    });
  }

  it('when the connection drops twice, the read still succeeds', async () => {
    const { client } = testClient(upstream.url);
    upstream.sim.faults.enqueue({ kind: 'drop' }, { kind: 'drop' });
    const page = await client.listSubAccounts(ctx(), {});
    expect(page.items.length).toBeGreaterThan(0);
    expect(upstream.sim.stats.count('GET /sub-account')).toBe(3);
    await client.close();
  });

  it('waits with exponential backoff and full jitter when no Retry-After is given', async () => {
    const { client, sleeps } = testClient(upstream.url, { random: () => 0.5, backoffBaseMs: 100 });
    upstream.sim.faults.enqueue({ kind: 'status', status: 502 }, { kind: 'status', status: 502 });
    await client.listCards(ctx(), {});
    expect(sleeps).toEqual([50, 100]);
    await client.close();
  });

  it('never waits longer than the backoff cap', async () => {
    const { client, sleeps } = testClient(upstream.url, {
      random: () => 0.999,
      backoffBaseMs: 100,
      backoffCapMs: 150,
    });
    upstream.sim.faults.enqueue({ kind: 'status', status: 502 }, { kind: 'status', status: 502 });
    await client.listCards(ctx(), {});
    expect(sleeps).toEqual([99, 149]);
    await client.close();
  });

  it('honours Retry-After in seconds', async () => {
    const { client, sleeps } = testClient(upstream.url);
    upstream.sim.faults.enqueue({ kind: 'status', status: 429, retryAfter: '2' });
    await client.listCards(ctx(), {});
    expect(sleeps).toEqual([2000]);
    await client.close();
  });

  it('honours Retry-After as an HTTP date', async () => {
    const base = Math.ceil(Date.now() / 1000) * 1000 + 60_000;
    const { client, sleeps } = testClient(upstream.url, { now: () => base });
    upstream.sim.faults.enqueue({
      kind: 'status',
      status: 503,
      retryAfter: new Date(base + 3000).toUTCString(),
    });
    await client.listCards(ctx(), {});
    expect(sleeps).toEqual([3000]);
    await client.close();
  });
});

describe('reads give up inside the deadline', () => {
  it('fails fast with 503 and Retry-After when the wait would pass the deadline', async () => {
    const { client, sleeps } = testClient(upstream.url, { deadlineMs: 5_000 });
    upstream.sim.faults.enqueue({ kind: 'status', status: 429, retryAfter: '120' });
    const error = await failure(client.listCards(ctx(), {}));
    expect(error).toMatchObject({
      status: 503,
      code: 'upstream_unavailable',
      retryAfterSeconds: 120,
    });
    expect(sleeps).toEqual([]);
    expect(upstream.sim.stats.count('GET /card')).toBe(1);
    await client.close();
  });

  it('after three 429s the person gets 503 with a retry hint', async () => {
    const { client } = testClient(upstream.url);
    for (let i = 0; i < 3; i++)
      upstream.sim.faults.enqueue({ kind: 'status', status: 429, retryAfter: '1' });
    const error = await failure(client.listCards(ctx(), {}));
    expect(error).toMatchObject({
      status: 503,
      code: 'upstream_unavailable',
      retryAfterSeconds: 1,
    });
    expect(upstream.sim.stats.count('GET /card')).toBe(3);
    await client.close();
  });

  it('after three 500-class failures the person gets 502 upstream_error', async () => {
    const { client } = testClient(upstream.url);
    for (let i = 0; i < 3; i++) upstream.sim.faults.enqueue({ kind: 'status', status: 502 });
    expect(await failure(client.listCards(ctx(), {}))).toMatchObject({
      status: 502,
      code: 'upstream_error',
    });
    expect(upstream.sim.stats.count('GET /card')).toBe(3);
    await client.close();
  });

  it('a 500 is not retried (it is not a transient overload signal)', async () => {
    const { client } = testClient(upstream.url);
    upstream.sim.faults.enqueue({ kind: 'status', status: 500 });
    expect(await failure(client.listCards(ctx(), {}))).toMatchObject({
      status: 502,
      code: 'upstream_error',
    });
    expect(upstream.sim.stats.count('GET /card')).toBe(1);
    await client.close();
  });

  it('slow answers time out per attempt and the call ends by its deadline with 504', async () => {
    const { client } = testClient(upstream.url, {
      attemptTimeoutMs: 150,
      deadlineMs: 400,
    });
    for (let i = 0; i < 3; i++) upstream.sim.faults.enqueue({ kind: 'delay', ms: 1_000 });
    const started = Date.now();
    const error = await failure(client.listCards(ctx(), {}));
    expect(error).toMatchObject({ status: 504, code: 'upstream_timeout' });
    expect(Date.now() - started).toBeLessThan(1_500);
    await client.close();
  });
});

describe('writes are sent exactly once', () => {
  const faults = [
    { kind: 'status', status: 503 },
    { kind: 'status', status: 429, retryAfter: '1' },
    { kind: 'status', status: 502 },
    { kind: 'drop' },
    { kind: 'malformed' },
  ] as const;

  for (const fault of faults) {
    it(`PATCH /card is not retried on ${fault.kind} ${'status' in fault ? fault.status : ''}`, async () => {
      const { client, sleeps } = testClient(upstream.url);
      const card = (await client.listCards(ctx('admin'), {})).items[0];
      if (!card) throw new Error('the simulator has no cards');
      upstream.sim.stats.reset();
      upstream.sim.faults.enqueue({ ...fault, method: 'PATCH' });
      await expect(
        client.updateCard(ctx('admin'), card.id, { name: 'Changed Name' }),
      ).rejects.toThrow();
      expect(upstream.sim.stats.count('PATCH /card/:id')).toBe(1);
      expect(sleeps).toEqual([]);
      await client.close();
    });

    it(`POST /sub-account is not retried on ${fault.kind} ${'status' in fault ? fault.status : ''}`, async () => {
      const { client } = testClient(upstream.url);
      upstream.sim.faults.enqueue({ ...fault, method: 'POST' });
      await expect(client.createSubAccount(ctx('admin'), { name: 'Once Only' })).rejects.toThrow();
      expect(upstream.sim.stats.count('POST /sub-account')).toBe(1);
      await client.close();
    });
  }

  it('a PATCH that times out is not re-sent', async () => {
    const { client } = testClient(upstream.url, { attemptTimeoutMs: 100, deadlineMs: 2_000 });
    const card = (await client.listCards(ctx('admin'), {})).items[0];
    if (!card) throw new Error('the simulator has no cards');
    upstream.sim.stats.reset();
    upstream.sim.faults.enqueue({ kind: 'delay', ms: 500, method: 'PATCH' });
    expect(
      await failure(client.updateCard(ctx('admin'), card.id, { name: 'Slow Name' })),
    ).toMatchObject({
      status: 504,
      code: 'upstream_timeout',
    });
    expect(upstream.sim.stats.count('PATCH /card/:id')).toBe(1);
    await client.close();
  });
});

describe('the walks’ pace hears of every 429', () => {
  it('a 429 a retry got past, to a person’s read too, still holds the walks for the wait asked', async () => {
    const base = Date.now();
    const { client } = testClient(upstream.url, { now: () => base });
    upstream.sim.faults.enqueue({ kind: 'status', status: 429, retryAfter: '1' });
    await client.listCards(ctx(), {});
    expect(client.pace?.state()).toMatchObject({ busy: 1, backoffs: 1, holdUntil: base + 1_000 });
    await client.close();
  });
});

describe('after the card service asks to slow down, bulk walks let people go first', () => {
  it('a 429 to anyone holds bulk calls back half as long again as it asked; people’s reads are not held', async () => {
    const base = Date.now();
    const { client, sleeps } = testClient(upstream.url, { now: () => base });
    upstream.sim.faults.enqueue({ kind: 'status', status: 429, retryAfter: '2' });
    await client.listCards(ctx(), {});
    expect(sleeps).toEqual([2000]);
    // A person's read right after: sent at once.
    await client.listCards(ctx('admin'), {});
    expect(sleeps).toEqual([2000]);
    // A bulk walk's read: waits out the hold first (2 s × 1.5), then goes.
    const before = upstream.sim.stats.count('GET /card');
    await client.listCards({ ...ctx(), bulk: true }, {});
    expect(sleeps).toEqual([2000, 3000]);
    expect(upstream.sim.stats.count('GET /card')).toBe(before + 1);
    await client.close();
  });

  it('a bulk call held back waits again for as long as a 429 heard while it waited lengthened the hold', async () => {
    const base = Date.now();
    const { client, sleeps } = testClient(upstream.url, { now: () => base });
    upstream.sim.faults.enqueue({ kind: 'status', status: 429, retryAfter: '1' });
    await client.listCards(ctx(), {});
    const before = upstream.sim.stats.count('GET /card');
    // Held back 1.5 s; while it waits, a person's read hears a 429 asking for 2 s: the hold is
    // 3 s now, and the bulk call waits the 1.5 s more before it asks.
    const bulk = client.listCards({ ...ctx(), bulk: true }, {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sleeps).toEqual([1000, 1500]);
    upstream.sim.faults.enqueue({ kind: 'status', status: 429, retryAfter: '2' });
    const person = client.listCards(ctx('admin'), {});
    await bulk;
    await person;
    expect(sleeps).toEqual([1000, 1500, 2000, 1500]);
    // The bulk call asked once, after the person's read had been refused.
    expect(upstream.sim.stats.count('GET /card')).toBe(before + 3);
    await client.close();
  });

  it('a bulk call whose deadline ends inside the hold fails at once as busy, sending nothing', async () => {
    const base = Date.now();
    const { client, sleeps } = testClient(upstream.url, { now: () => base, deadlineMs: 2_500 });
    upstream.sim.faults.enqueue({ kind: 'status', status: 429, retryAfter: '2' });
    await client.listCards(ctx(), {});
    const before = upstream.sim.stats.count('GET /card');
    const error = await failure(client.listCards({ ...ctx(), bulk: true }, {}));
    expect(error).toMatchObject({
      status: 503,
      code: 'upstream_unavailable',
      retryAfterSeconds: 3,
    });
    expect(upstream.sim.stats.count('GET /card')).toBe(before);
    expect(sleeps).toEqual([2000]);
    await client.close();
  });
});
