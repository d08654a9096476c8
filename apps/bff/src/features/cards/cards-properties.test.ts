import { apiErrorBodySchema } from '@card-console/shared/api/error';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardValuesSeen } from '../../test/card-values';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

// Random query strings and bodies at the card routes, as each role: always a 2xx or a 4xx
// with a well-formed error body, never a 5xx or a hang, and a refused request changes nothing.
const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`cards properties: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

let t: TestApp;
const sessions: TestSession[] = [];
let cardIds: string[];

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 500 } });
  sessions.push(await t.signIn('finance'), await t.signIn('admin'));
  cardIds = t.sim.data.cards().map((c) => c.id);
});
const tally = new Map<number, number>();
afterAll(async () => {
  console.log(`cards properties: statuses`, Object.fromEntries(tally));
  await t.close();
});

const snapshot = () =>
  JSON.stringify({ cards: t.sim.data.cards(), subs: t.sim.data.subAccounts() });

const junk = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '',
    'active',
    'ASC',
    'desc',
    'name',
    'createdAt',
    '-1',
    '1e309',
    '%',
    '%zz',
    '__proto__',
    'null',
  ),
);
const queryArb = fc
  .array(
    fc.tuple(
      fc.constantFrom(
        'status',
        'sort',
        'direction',
        'cursor',
        'x',
        'status[]',
        '__proto__',
        'filter:status',
      ),
      junk,
    ),
    {
      maxLength: 5,
    },
  )
  .map((pairs) =>
    pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
  );
const centsArb = fc.oneof(
  fc.integer({ min: -10, max: 2_000_000 }),
  fc.double(),
  fc.string(),
  fc.constant(null),
);
const bodyArb = fc.oneof(
  fc.jsonValue(),
  fc.record(
    {
      name: fc.oneof(fc.string({ maxLength: 120 }), fc.jsonValue()),
      reason: fc.oneof(fc.string({ maxLength: 40 }), fc.jsonValue()),
      totp: fc.oneof(fc.stringMatching(/^\d{6}$/), fc.string()),
      transactionSizeLimit: fc.oneof(
        fc.record({ minimumCents: centsArb, maximumCents: centsArb }, { requiredKeys: [] }),
        fc.jsonValue(),
      ),
      extra: fc.jsonValue(),
    },
    { requiredKeys: [] },
  ),
);
const idArb = fc.oneof(
  fc.constantFrom(...['card_missing', 'a.b', '..', '%2e%2e', 'x'.repeat(70)]),
  fc.string({ minLength: 1 }).map(encodeURIComponent),
  fc.nat().map((i) => cardIds[i % cardIds.length] ?? 'none'),
);

const requestArb = fc.record({
  who: fc.nat({ max: 1 }),
  kind: fc.constantFrom('list', 'read', 'patch', 'reveal'),
  id: idArb,
  query: queryArb,
  body: bodyArb,
  /** A PATCH states the card's values as they are, as the SPA does, so edits can succeed. */
  statesCurrent: fc.boolean(),
});

describe('card routes under random input', () => {
  it('answer 2xx or a well-formed 4xx, and refusals change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, async ({ who, kind, id, query, body, statesCurrent }) => {
        const current =
          statesCurrent && t.sim.data.card(id) ? cardValuesSeen(t.sim, id) : undefined;
        if (kind === 'patch' && current && body && typeof body === 'object' && !Array.isArray(body))
          Object.assign(body, { expected: current });
        const session = sessions[who] as TestSession;
        const before = snapshot();
        const path =
          kind === 'list'
            ? `/api/cards?${query}`
            : `/api/cards/${id}${kind === 'reveal' ? '/reveal' : ''}?${query}`;
        const call =
          kind === 'patch'
            ? t.request.patch(path).send(body as object)
            : kind === 'reveal'
              ? t.request.post(path).send(body as object)
              : t.request.get(path);
        const res = await call
          .set(session.headers({ 'content-type': 'application/json' }))
          .timeout(10_000);
        tally.set(res.status, (tally.get(res.status) ?? 0) + 1);
        expect(
          res.status,
          `${kind} ${path} → ${res.status} ${res.text.slice(0, 200)}`,
        ).toBeLessThan(500);
        if (res.status >= 400) {
          expect(apiErrorBodySchema.safeParse(res.body).success, res.text).toBe(true);
          expect(snapshot()).toBe(before);
        }
      }),
      { seed, numRuns: 150 },
    );
  });
});
