import { apiErrorBodySchema } from '@card-console/shared/api/error';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

// Random query strings at the transaction routes (list, read, export), as each role: always a
// 2xx or a 4xx with a well-formed error body, never a 5xx or a hang.
const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`transactions properties: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

let t: TestApp;
const sessions: TestSession[] = [];
let subIds: string[];
let txIds: string[];

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 600 } });
  sessions.push(await t.signIn('finance'), await t.signIn('admin'));
  subIds = t.sim.data.subAccounts().map((s) => s.id);
  txIds = t.sim.data
    .transactions(subIds[0] ?? '')
    .slice(0, 20)
    .map((x) => x.id);
});
const tally = new Map<number, number>();
afterAll(async () => {
  console.log(`transactions properties: statuses`, Object.fromEntries(tally));
  await t.close();
});

const value = fc.oneof(
  fc.string(),
  fc.nat().map((i) => subIds[i % subIds.length] ?? ''),
  fc.integer({ min: -5, max: 2 ** 53 }).map(String),
  fc.date({ noInvalidDate: true }).map((d) => String(d.getTime())),
  fc.constantFrom(
    'settled',
    'pending',
    'lost',
    '',
    '%',
    '1e3',
    '0x10',
    ' 1',
    'eyJ4IjoxfQ',
    'card_1',
  ),
);
const key = fc.constantFrom(
  'subAccountId',
  'from',
  'to',
  'status',
  'cardId',
  'cursor',
  'from_date',
  'x',
  'to[]',
);
const queryArb = fc
  .array(fc.tuple(key, value), { maxLength: 6 })
  .map((pairs) =>
    pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
  );
const pathArb = fc.oneof(
  fc.constant('/api/transactions'),
  fc.constant('/api/transactions/export.csv'),
  fc.nat().map((i) => `/api/transactions/${txIds[i % txIds.length]}`),
  fc.string({ minLength: 1 }).map((s) => `/api/transactions/${encodeURIComponent(s)}`),
);

describe('transaction routes under random input', () => {
  it('answer 2xx or a well-formed 4xx, never a 5xx or a hang', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 1 }), pathArb, queryArb, async (who, path, query) => {
        const session = sessions[who] as TestSession;
        const res = await t.request
          .get(`${path}?${query}`)
          .set(session.headers())
          .timeout(15_000)
          .buffer(true);
        tally.set(res.status, (tally.get(res.status) ?? 0) + 1);
        expect(
          res.status,
          `${path}?${query} → ${res.status} ${res.text?.slice(0, 200)}`,
        ).toBeLessThan(500);
        if (res.status >= 400)
          expect(apiErrorBodySchema.safeParse(res.body).success, res.text).toBe(true);
      }),
      { seed, numRuns: 150 },
    );
  });
});
