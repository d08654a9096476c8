import { apiErrorBodySchema } from '@card-console/shared/api/error';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

// Random queries and bodies at the sub-account routes, as each role: always a 2xx or a
// well-formed 4xx, never a 5xx or a hang, and a refused request creates nothing.
const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`sub-accounts properties: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

let t: TestApp;
const sessions: TestSession[] = [];

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 200 } });
  sessions.push(await t.signIn('finance'), await t.signIn('admin'));
});
const tally = new Map<number, number>();
afterAll(async () => {
  console.log(`sub-accounts properties: statuses`, Object.fromEntries(tally));
  await t.close();
});

const queryArb = fc
  .array(
    fc.tuple(
      fc.constantFrom('cursor', 'name', 'x', 'cursor[]'),
      fc.oneof(fc.string(), fc.constantFrom('', 'abc', '%')),
    ),
    {
      maxLength: 4,
    },
  )
  .map((pairs) =>
    pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
  );
const bodyArb = fc.oneof(
  fc.jsonValue(),
  fc.record(
    { name: fc.oneof(fc.string({ maxLength: 120 }), fc.jsonValue()), id: fc.string() },
    { requiredKeys: [] },
  ),
);

describe('sub-account routes under random input', () => {
  it('answer 2xx or a well-formed 4xx, and refusals create nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 1 }),
        fc.boolean(),
        queryArb,
        bodyArb,
        async (who, create, query, body) => {
          const session = sessions[who] as TestSession;
          const before = JSON.stringify(t.sim.data.subAccounts());
          const call = create
            ? t.request.post(`/api/sub-accounts?${query}`).send(body as object)
            : t.request.get(`/api/sub-accounts?${query}`);
          const res = await call
            .set(session.headers({ 'content-type': 'application/json' }))
            .timeout(10_000);
          tally.set(res.status, (tally.get(res.status) ?? 0) + 1);
          expect(
            res.status,
            `${create ? 'POST' : 'GET'} ?${query} → ${res.status} ${res.text.slice(0, 200)}`,
          ).toBeLessThan(500);
          if (res.status >= 400) {
            expect(apiErrorBodySchema.safeParse(res.body).success, res.text).toBe(true);
            expect(JSON.stringify(t.sim.data.subAccounts())).toBe(before);
          }
        },
      ),
      { seed, numRuns: 150 },
    );
  });
});
