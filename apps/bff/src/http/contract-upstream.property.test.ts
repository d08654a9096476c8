// The BFF in front of a card service that follows the contract and nothing more: ids and
// cursors are any strings (spaces, `+`, `/`, `%`, `?`, `#`, dot segments, any script), optional
// fields come and go, unknown ones appear, page sizes vary. Random worlds built from the
// upstream schemas' shapes (test/contract-answers.ts), served over real HTTP on loopback
// (test/contract-card-service.ts): the list, detail and Overview endpoints never answer 5xx,
// paging with the cursors they hand out reaches every row, an id the BFF can address reads its
// own card or transaction, one it cannot is a 4xx with the error body, and every request the
// card service gets is one of the contract's operations with the id as one path segment.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { type Overview, overviewSchema } from '@card-console/shared/api/overview';
import { isResourceId } from '@card-console/shared/upstream/ids';
import fc from 'fast-check';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { neutralizeFormula } from '../features/transactions/csv-row';
import { type ContractWorld, contractWorld } from '../test/contract-answers';
import { type ContractCardService, startContractCardService } from '../test/contract-card-service';
import { parseCsv } from '../test/csv';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../test/harness';
import { testPan } from '../test/test-pan';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`contract upstream property: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

const NOW = Date.UTC(2026, 0, 15, 12);
const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dates = { min: NOW - 40 * DAY_MS, max: NOW };
const OPERATIONS = /^GET \/(sub-account|card|transaction)(\/[^/?#]+)?(\?[^#]*)?$/;

let service: ContractCardService;
let t: TestApp;
let finance: TestSession;
beforeAll(async () => {
  service = await startContractCardService('contract-test-key');
  t = await startTestApp({
    upstream: { url: service.url, apiKey: service.apiKey },
    clock: new ManualClock(NOW),
  });
  finance = await t.signIn('finance');
});
afterAll(async () => {
  await t.close();
  await service.close();
});

/** A call to the BFF: never a 5xx; a 4xx carries the error body. */
async function get(path: string): Promise<Response> {
  const res = await t.request.get(path).set(finance.headers()).timeout(20_000);
  expect(res.status, `${path} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400)
    expect(apiErrorBodySchema.safeParse(res.body).success, res.text).toBe(true);
  return res;
}

/** Every page of a BFF list, following the cursors it hands out; the ids in order. */
async function walk(path: string, query: Record<string, string> = {}): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 200; n++) {
    const params = { ...query, ...(cursor === undefined ? {} : { cursor }) };
    const qs = Object.entries(params)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .join('&');
    const res = await get(qs ? `${path}?${qs}` : path);
    expect(res.status, `${path} page ${n + 1}: ${res.text.slice(0, 300)}`).toBe(200);
    ids.push(...(res.body.items as { id: string }[]).map((item) => item.id));
    cursor = res.body.nextCursor;
    if (cursor === undefined) return ids;
  }
  throw new Error(`${path} never ended`);
}

/** An id read through the BFF: the very item when the BFF can address the id, else a 4xx. */
async function read(base: string, id: string) {
  const res = await get(`${base}/${encodeURIComponent(id)}`);
  if (isResourceId(id)) {
    expect(res.status, `${base} ${JSON.stringify(id)}: ${res.text.slice(0, 300)}`).toBe(200);
    expect(res.body.id).toBe(id);
  } else {
    expect(res.status, `${base} ${JSON.stringify(id)}`).toBeGreaterThanOrEqual(400);
  }
}

async function settledOverview(query: string): Promise<Overview> {
  for (let i = 0; i < 500; i++) {
    const res = await get(`/api/overview?${query}`);
    expect(res.status, res.text).toBe(200);
    const body = overviewSchema.parse(res.body);
    if (body.status !== 'computing') return body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the overview never finished computing');
}

const ids = (items: Record<string, unknown>[]) => items.map((item) => item.id as string);

/** Everything a person's screens read from this world, checked. */
async function readEverything(world: ContractWorld) {
  service.setWorld(world);
  const from = service.received.length;

  expect(await walk('/api/sub-accounts')).toEqual(ids(world.subAccounts));
  expect(await walk('/api/cards')).toEqual(ids(world.cards));
  expect(await walk('/api/cards', { status: 'active', sort: 'name' })).toEqual(
    ids(world.cards.filter((c) => c.status === 'active')),
  );
  for (const sub of world.subAccounts) {
    const subId = sub.id as string;
    const rows = world.transactions.filter((r) => r.subAccountId === subId).map((r) => r.item);
    if (isResourceId(subId)) {
      expect(await walk('/api/transactions', { subAccountId: subId })).toEqual(ids(rows));
      // The export walks the same pages itself and writes each id as a spreadsheet keeps it.
      const csv = await get(
        `/api/transactions/export.csv?subAccountId=${encodeURIComponent(subId)}`,
      );
      expect(csv.status, csv.text.slice(0, 300)).toBe(200);
      const [header, ...records] = parseCsv(csv.text);
      const idColumn = header?.indexOf('id') ?? -1;
      expect(records.map((r) => r[idColumn]).sort()).toEqual(
        ids(rows).map(neutralizeFormula).sort(),
      );
      const cardId = rows.find((r) => isResourceId(r.cardId))?.cardId as string | undefined;
      if (cardId !== undefined) {
        expect(await walk('/api/transactions', { subAccountId: subId, cardId })).toEqual(
          ids(rows.filter((r) => r.cardId === cardId)),
        );
      }
    } else {
      const res = await get(`/api/transactions?subAccountId=${encodeURIComponent(subId)}`);
      expect(res.status).toBe(400);
    }
  }
  for (const card of world.cards) await read('/api/cards', card.id as string);
  for (const { item } of world.transactions.slice(0, 4)) {
    await read('/api/transactions', item.id as string);
  }
  const overview = await settledOverview(
    `from=${day(NOW - 14 * DAY_MS)}&to=${day(NOW)}&tz=Europe%2FParis&refresh=1`,
  );
  expect(overview.status, overview.error).toBe('complete');
  // The index syncs every sub account of this world and lists its rows (no sync outliving this
  // world into the next).
  let indexed = await get('/api/index/transactions');
  for (let i = 0; i < 200 && indexed.body.freshness?.syncing; i++) {
    await new Promise((r) => setTimeout(r, 50));
    indexed = await get('/api/index/transactions');
  }
  expect(indexed.status).toBe(200);
  expect(indexed.body.freshness.syncing).toBe(false);

  // Only the contract's operations, each id one path segment that reads back as the id.
  for (const r of service.received.slice(from)) {
    expect(`${r.method} ${r.url}`).toMatch(OPERATIONS);
    expect(r.read, r.url).not.toMatch(/outside the contract|unknown cursor|malformed/);
  }
}

const fixedWorld = (over: Partial<ContractWorld>): ContractWorld => ({
  subAccounts: [],
  cards: [],
  transactions: [],
  pageSize: { subAccounts: 1, cards: 1, transactions: 1 },
  cursors: ['quaerat sit', 'ab+/cd==', '100%/?#', 'ключ 🔑'],
  withCount: true,
  ...over,
});
const card = (id: string, name = 'Card') => ({ id, last4: '4242', name, status: 'active' });
const tx = (id: string, cardId: string, at: number) => ({
  id,
  date: new Date(at).toISOString(),
  description: 'Coffee',
  amountCents: -450,
  status: 'settled',
  referenceNumber: 'ref',
  cardId,
});

describe('ids and cursors a card service may use, through the BFF', () => {
  it('pages with cursors holding spaces, "+", "/", "=", "%" and unicode, and reads each id as one path segment', async () => {
    const cardIds = ['card one', 'a/b', '../sub-account', '100%', 'x?include_pan=true#f', '卡片'];
    const world = fixedWorld({
      subAccounts: [
        { id: 'ops team', name: 'Ops' },
        { id: 'a+b/c=', name: 'Travel' },
      ],
      cards: cardIds.map((id) => card(id)),
      transactions: cardIds.map((cardId, i) => ({
        subAccountId: i % 2 ? 'a+b/c=' : 'ops team',
        item: tx(`tx ${cardId}`, cardId, NOW - i * DAY_MS),
      })),
    });
    await readEverything(world);
    const reads = service.received.filter((r) => r.url.startsWith('/card/'));
    expect(reads.map((r) => r.url)).toEqual(cardIds.map((id) => `/card/${encodeURIComponent(id)}`));
    expect(reads.map((r) => r.read)).toEqual(
      cardIds.map((id) => `GET /card/{id} ${JSON.stringify(id)}`),
    );
  });

  it.each([
    ['..', 'a dot segment'],
    ['.', 'a dot segment'],
    ['a\u0000b', 'a control character'],
    ['x'.repeat(513), 'more than 512 bytes'],
  ])(
    'answers the id %j (%s) with a 400 and the error body, asking the service nothing',
    async (id) => {
      const before = service.received.length;
      const res = await t.request
        .get(`/api/cards/${encodeURIComponent(id).replaceAll('.', '%2E')}`)
        .set(finance.headers());
      expect(res.status).toBe(400);
      expect(apiErrorBodySchema.parse(res.body)).toMatchObject({ code: 'invalid_path' });
      expect(service.received.length).toBe(before);
    },
  );
});

describe('a card number where an id belongs, now that ids may hold spaces and "/"', () => {
  const pan = testPan(4242);
  const grouped = (sep: string) => pan.replace(/(\d{4})(?=\d)/g, `$1${sep}`);

  it.each([
    ['grouped with spaces', grouped(' ')],
    ['grouped with "/"', grouped('/')],
  ])(
    '%s is refused as the card-number check says (400 invalid_id), never sent on',
    async (_how, id) => {
      const before = service.received.length;
      const res = await t.request
        .get(`/api/cards/${encodeURIComponent(id)}`)
        .set(finance.headers());
      expect(res.status).toBe(400);
      expect(apiErrorBodySchema.parse(res.body).code).toBe('invalid_id');
      expect(service.received.length).toBe(before);
      expect(t.logs.join('\n')).not.toContain(pan);
    },
  );
});

describe('random contract-valid card services, through the BFF', () => {
  it('never answer 5xx, page to the end with their cursors, and read every addressable id', async () => {
    await fc.assert(
      fc.asyncProperty(contractWorld(dates), async (world) => {
        await readEverything(world);
      }),
      { seed, numRuns: Number(process.env.FC_RUNS ?? 30), endOnFailure: true },
    );
  });
});
