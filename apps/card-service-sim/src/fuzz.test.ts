import { errorBodySchema } from '@card-console/shared/upstream/common';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Reply, useService } from './test-support/harness';

/** Fixed by FC_SEED to replay a failure; printed either way. */
const seed = Number(process.env.FC_SEED ?? Math.floor(Math.random() * 2 ** 31));
const numRuns = Number(process.env.FC_RUNS ?? 150);
console.log(`[fuzz] fast-check seed ${seed} (FC_SEED=${seed} replays it), ${numRuns} runs each`);

function expectClientOrSuccess(reply: Reply, what: string): void {
  expect(reply.status, `${what} → ${reply.status} ${reply.text.slice(0, 200)}`).toBeLessThan(500);
  expect(reply.headers.get('content-type'), what).toMatch(/^application\/json/);
  expect(reply.json, what).toBeDefined();
  if (reply.status >= 400) {
    const body = errorBodySchema.safeParse(reply.json);
    expect(body.success, `${what}: error body ${reply.text}`).toBe(true);
    expect(body.data?.status).toBe(reply.status);
  } else {
    expect(reply.status).toBeGreaterThanOrEqual(200);
  }
}

describe('random input at every endpoint', () => {
  const h = useService({ transactions: 2_000, pageSize: { cards: 5, transactions: 10 } });
  const ids = { sub: [''], card: [''], txn: [''], cursor: [''] };

  beforeAll(async () => {
    ids.sub = h.service.data.subAccounts().map((s) => s.id);
    ids.card = h.service.data.cards().map((c) => c.id);
    ids.txn = h.service.data
      .transactions(ids.sub[0] ?? '')
      .slice(0, 20)
      .map((t) => t.id);
    const pages = await Promise.all(
      ['/card', '/card?sort=name', `/transaction?subAccountId=${ids.sub[0]}`].map((p) => h.get(p)),
    );
    ids.cursor = pages.map((p) => p.metadata.nextCursor as string);
  });

  const names = [
    'subAccountId',
    'from_date',
    'to_date',
    'status',
    'card_id',
    'cursor',
    'filter:status',
    'sort',
    'sortDirection',
    'include_pan',
    'include_cvv',
    'limit',
    '__proto__',
    'constructor',
    '',
  ];
  const value = () =>
    fc.oneof(
      fc.constantFrom(
        'true',
        'false',
        'ASC',
        'DESC',
        'name',
        'createdAt',
        'settled',
        'active',
        '0',
        '-1',
        '1700000000000',
        '99999999999999999999',
        '1e3',
        'NaN',
        '',
        ' ',
        '%',
        'null',
      ),
      fc.constantFrom(...[0, 1, 2]).map((i) => ids.sub[i] ?? ''),
      fc.constantFrom(...[0, 1, 2]).map((i) => ids.card[i] ?? ''),
      fc.constantFrom(...[0, 1, 2]).map((i) => ids.cursor[i] ?? ''),
      fc
        .tuple(fc.constantFrom(...[0, 1, 2]), fc.nat(60), fc.string({ maxLength: 2 }))
        .map(([i, at, s]) => {
          const c = ids.cursor[i] ?? '';
          return c.slice(0, at) + s + c.slice(at + 1);
        }),
      fc.string({ maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 10 }),
    );
  const query = fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 8 })), value()), {
      maxLength: 6,
    })
    .map((pairs) =>
      pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
    );
  const id = () =>
    fc.oneof(
      fc.constantFrom(...[0, 1]).map((i) => ids.card[i] ?? ''),
      fc.constantFrom(...[0, 1]).map((i) => ids.txn[i] ?? ''),
      fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent),
      fc.constantFrom('%', '%E0%A4%A', '..', '%2F', 'txn_0000000', 'a'.repeat(300)),
    );
  const path = fc.oneof(
    fc.constantFrom('/transaction', '/card', '/sub-account'),
    id().map((x) => `/transaction/${x}`),
    id().map((x) => `/card/${x}`),
    fc.string({ maxLength: 12 }).map((s) => `/${encodeURIComponent(s)}`),
  );

  it('GET with random paths and query strings answers 2xx or 4xx with an error body, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(path, query, async (p, q) => {
        const target = q ? `${p}?${q}` : p;
        expectClientOrSuccess(await h.request(target), `GET ${target}`);
      }),
      { seed, numRuns },
    );
  });

  const amount = fc.oneof(
    fc.record({ amountCents: fc.oneof(fc.integer(), fc.double(), fc.constant(2 ** 60)) }),
    fc.anything(),
  );
  const nearlyValidPatch = fc.record(
    {
      name: fc.oneof(fc.string({ maxLength: 120 }), fc.anything()),
      spendingConstraint: fc.oneof(
        fc.record(
          {
            spendingRule: fc.record(
              {
                transactionSizeLimit: fc.record(
                  { minimum: amount, maximum: amount },
                  { requiredKeys: [] },
                ),
                utilizationLimit: fc.anything(),
              },
              { requiredKeys: [] },
            ),
          },
          { requiredKeys: [] },
        ),
        fc.anything(),
      ),
      extra: fc.anything(),
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    nearlyValidPatch.map((b) => JSON.stringify(b)),
    fc
      .record({ name: fc.string({ maxLength: 120 }) }, { requiredKeys: [] })
      .map((b) => JSON.stringify(b)),
    fc.json({ maxDepth: 3 }),
    fc.string({ maxLength: 50 }),
    fc.constantFrom(
      '',
      '{',
      '[]',
      'null',
      '{"name":"x"}garbage',
      `{"name":"${'y'.repeat(17_000)}"}`,
    ),
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'text/plain',
    'application/x-www-form-urlencoded',
    undefined,
  );

  it('PATCH /card/:id and POST /sub-account with random bodies answer 2xx or 4xx, never 5xx', async () => {
    const target = fc.oneof(
      id().map((x) => ({ method: 'PATCH', path: `/card/${x}` })),
      fc.constant({ method: 'POST', path: '/sub-account' }),
      fc.constantFrom(...[0, 1]).map((i) => ({ method: 'PATCH', path: `/card/${ids.card[i]}` })),
      fc.constantFrom('PUT', 'DELETE', 'POST').map((method) => ({ method, path: '/card' })),
    );
    await fc.assert(
      fc.asyncProperty(target, query, body, contentType, async (t, q, b, type) => {
        const url = q && q.length % 3 === 0 ? `${t.path}?${q}` : t.path;
        const reply = await h.request(url, {
          method: t.method,
          body: b,
          headers: type ? { 'content-type': type } : {},
        });
        expectClientOrSuccess(reply, `${t.method} ${url} ${b.slice(0, 80)}`);
      }),
      { seed, numRuns },
    );
  });

  it('after the storm every card still satisfies minimum <= maximum and reads back', async () => {
    for (const card of h.service.data.cards()) {
      const { minimum, maximum } = card.spendingConstraint.spendingRule.transactionSizeLimit;
      expect(minimum.amountCents).toBeLessThanOrEqual(maximum.amountCents);
      expect((await h.request(`/card/${card.id}`)).status).toBe(200);
    }
  });
});
