// The accountant's files over HTTP, on both index engines, against rows the test wrote: every
// status, with and without a card (a failed +$106,400 funding credit, a declined PayPal
// charge, a returned ACH payment among them). The oracle is docs/money.md's table by hand:
// a row is in an accounting file when its status is settled, refund or dispute ("posted"),
// and the file nets to those rows' signed sum; nothing else is ever in one.

import http from 'node:http';
import { merchantsOf } from '@card-console/shared/merchants';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stores } from '../../stores';
import { parseCsv } from '../../test/csv';
import { testDatabase } from '../../test/engines/postgres';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { replicaStores } from '../../test/replica-stores';
import { settledIndexList, settledIndexTotals } from '../../test/settled-index';

/** A download over a socket of its own, read to its end or its break. */
function download(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; complete: boolean; requestId: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            complete: res.complete,
            requestId: String(res.headers['x-request-id']),
          });
        res.resume();
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      })
      .on('error', reject);
  });
}

/** docs/money.md: "Posted = settled, refund and dispute rows: what an accounting file holds". */
const POSTED_BY_HAND = new Set(['settled', 'refund', 'dispute']);

type Status = 'pending' | 'settled' | 'declined' | 'canceled' | 'refund' | 'reversed' | 'dispute';
type OtherStatus = 'pending' | 'settled' | 'failed' | 'returned';
const card: { dollars: number; status: Status; description?: string }[] = [
  { dollars: -120.5, status: 'settled' },
  { dollars: -64.99, status: 'settled' },
  { dollars: -33.1, status: 'pending' },
  { dollars: -415, status: 'dispute' },
  { dollars: 25, status: 'refund' },
  { dollars: -728.82, status: 'declined', description: 'PAYPAL *NORTHSIDE FUEL' },
  { dollars: -450, status: 'canceled' },
  { dollars: -350, status: 'reversed' },
];
const noCard: { dollars: number; status: OtherStatus }[] = [
  { dollars: -1_250, status: 'settled' },
  { dollars: 50_000, status: 'settled' },
  { dollars: 106_400, status: 'failed' },
  { dollars: -300, status: 'returned' },
  { dollars: -99, status: 'pending' },
  { dollars: -77, status: 'failed' },
];

const cents = (dollars: string) => Math.round(Number(dollars) * 100);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

const engines: [string, () => Promise<{ index?: Stores; stop(): Promise<void> }>][] = [
  ['the embedded engine', async () => ({ stop: async () => {} })],
  [
    'PostgreSQL',
    async () => {
      const database = await testDatabase();
      const index = replicaStores(database.url);
      return { index, stop: () => database.stop() };
    },
  ],
];

describe.each(engines)('the accounting files on %s', (_name, engine) => {
  let t: TestApp;
  let finance: TestSession;
  let stopEngine: () => Promise<void>;
  let subAccountId: string;
  let bookedId: string;

  beforeAll(async () => {
    const { index, stop } = await engine();
    stopEngine = stop;
    t = await startTestApp({
      sim: { subAccounts: 1, cards: 2, transactions: 0, months: 1, rateLimit: false },
      ...(index ? { stores: index } : {}),
    });
    const admin = await t.signIn('admin');
    finance = await t.signIn('finance');
    subAccountId = t.sim.data.subAccounts()[0]?.id ?? '';
    const cardId = t.sim.data.cards()[0]?.id ?? '';
    for (const c of card) {
      t.sim.testing.addTransaction({
        subAccountId,
        cardId,
        amountCents: Math.round(c.dollars * 100),
        status: c.status,
        ...(c.description ? { description: c.description } : {}),
      });
    }
    for (const c of noCard) {
      t.sim.testing.addTransaction({
        subAccountId,
        amountCents: Math.round(c.dollars * 100),
        status: c.status,
      });
    }
    t.clock.set(Math.max(t.clock.now(), Date.now() + 1_000));
    await settledIndexList(t, finance, `?subAccountId=${subAccountId}`);
    // A person books the settled $120.50 charge to a category, with a memo.
    const created = await t.request
      .post('/api/accounting-categories')
      .set(admin.headers())
      .send({ code: '6420', name: 'Travel meals' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    bookedId = rowsByHand().find((r) => r.amountCents === -12_050)?.id ?? '';
    const booked = await t.request
      .patch(`/api/transactions/${bookedId}/notes`)
      .set(finance.headers())
      .send({ version: 0, memo: 'Client dinner', categoryId: created.body.id });
    expect(booked.status, JSON.stringify(booked.body)).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await stopEngine?.();
  });

  /** The card service's own rows of the sub account (the test's and its opening credit). */
  const rowsByHand = () => t.sim.data.transactions(subAccountId);
  const postedByHand = () => rowsByHand().filter((r) => POSTED_BY_HAND.has(r.status));

  async function file(format: string, extra = '') {
    const res = await t.request
      .get(
        `/api/index/transactions/export.csv?subAccountId=${subAccountId}&format=${format}${extra}`,
      )
      .set(finance.headers());
    expect(res.status, res.text).toBe(200);
    const [header, ...rows] = parseCsv(res.text).filter((r) => r.length > 1);
    const col = (name: string) => header?.indexOf(name) ?? -1;
    return { header, rows, col };
  }

  it("QuickBooks' bank upload holds exactly the posted rows and nets to their sum", async () => {
    const { header, rows } = await file('quickbooks');
    expect(header).toEqual(['Date', 'Description', 'Amount']);
    expect(rows).toHaveLength(postedByHand().length);
    expect(sum(rows.map((r) => cents(r[2] ?? '')))).toBe(
      sum(postedByHand().map((r) => r.amountCents)),
    );
    expect(rows.map((r) => r[1]).join('\n')).not.toContain('NORTHSIDE FUEL');
    expect(rows.map((r) => r[2])).not.toContain('106400.00');
  });

  it("Xero's precoded statement: the posted rows by id, their sum, the category's code and the card", async () => {
    const { header, rows, col } = await file('xero');
    expect(header).toEqual([
      '*Date',
      '*Amount',
      'Payee',
      'Description',
      'Reference',
      'Cheque Number',
      'Account code',
      'Tax type',
    ]);
    const ids = rows.map((r) => r[col('Reference')]);
    expect([...ids].sort()).toEqual(
      postedByHand()
        .map((r) => r.id)
        .sort(),
    );
    expect(sum(rows.map((r) => cents(r[col('*Amount')] ?? '')))).toBe(
      sum(postedByHand().map((r) => r.amountCents)),
    );
    const booked = rows.find((r) => r[col('Reference')] === bookedId);
    expect(booked?.[col('Account code')]).toBe('6420');
    expect(booked?.[col('Description')]).toMatch(/^Client dinner · card .+/);
    const uncoded = rows.filter((r) => r[col('Reference')] !== bookedId);
    expect(uncoded.map((r) => r[col('Account code')])).toEqual(uncoded.map(() => ''));
    // The payee is the merchant by name (the index's texts grouped), its description otherwise.
    const names = merchantsOf(
      t.sim.data
        .subAccounts()
        .flatMap((sub) => t.sim.data.transactions(sub.id))
        .flatMap((r) => (r.merchantData ? [r.merchantData.description] : [])),
    );
    const payees = new Map(
      postedByHand().map((r) => [
        r.id,
        r.merchantData ? (names.get(r.merchantData.description)?.name ?? '') : r.description,
      ]),
    );
    expect(new Map(rows.map((r) => [r[col('Reference')], r[col('Payee')]]))).toEqual(payees);
    expect(rows.some((r) => /^[A-Z][a-z]/.test(r[col('Payee')] ?? ''))).toBe(true);
  });

  it("QuickBooks' journal entries: one balanced entry per posted row, to its category, netting to the posted sum", async () => {
    const { header, rows, col } = await file('quickbooks-journal');
    expect(header).toEqual([
      'JournalNo',
      'JournalDate',
      'AccountName',
      'Debits',
      'Credits',
      'Description',
      'Name',
      'Memo',
    ]);
    const entries = new Map<string, string[][]>();
    for (const r of rows) {
      const no = r[col('JournalNo')] ?? '';
      entries.set(no, [...(entries.get(no) ?? []), r]);
    }
    expect([...entries.keys()].sort()).toEqual(
      postedByHand()
        .map((r) => r.id)
        .sort(),
    );
    const subAccountName = t.sim.data.subAccounts()[0]?.name ?? '';
    let bankNet = 0;
    for (const [id, lines] of entries) {
      expect(lines, id).toHaveLength(2);
      const debits = sum(lines.map((l) => cents(l[col('Debits')] || '0')));
      const credits = sum(lines.map((l) => cents(l[col('Credits')] || '0')));
      expect(debits, id).toBe(credits);
      const bank = lines.find((l) => l[col('AccountName')] === subAccountName);
      expect(bank, id).toBeDefined();
      bankNet += cents(bank?.[col('Debits')] || '0') - cents(bank?.[col('Credits')] || '0');
    }
    expect(bankNet).toBe(sum(postedByHand().map((r) => r.amountCents)));
    const booked = entries.get(bookedId) ?? [];
    const expense = booked.find((l) => l[col('AccountName')] === 'Travel meals');
    expect(expense?.[col('Debits')]).toBe('120.50');
    expect(expense?.[col('Description')]).toMatch(/ - Client dinner$/);
    expect(expense?.[col('Memo')]).toMatch(/^card .+ · ref /);
  });

  it('a filter asking for unposted statuses gives empty files; the CSV of Card Console keeps every row', async () => {
    const declined = await file('xero', '&status=declined&status=failed');
    expect(declined.rows).toEqual([]);
    const settledOnly = await file('quickbooks', '&status=settled&status=failed');
    expect(settledOnly.rows).toHaveLength(
      rowsByHand().filter((r) => r.status === 'settled').length,
    );
    const own = await file('card-console');
    expect(own.rows).toHaveLength(rowsByHand().length);
  });
});

// A month past an importer's limit (QuickBooks' bank upload 999 rows a file, Xero 1,000) comes
// as parts: together exactly the one long file's rows, each part within the limit. Each part
// names the posted set it was planned from (the screen's figures) and is refused once that set
// changed: a part is a slice by place, and a row synced between two parts moves every later one.
describe('accounting files past an importer’s limit, in parts', () => {
  let t: TestApp;
  let finance: TestSession;
  let subAccountId: string;
  let cardId: string;
  const posted = 1_003;

  beforeAll(async () => {
    t = await startTestApp({
      sim: { subAccounts: 1, cards: 1, transactions: 0, months: 1, rateLimit: false },
    });
    finance = await t.signIn('finance');
    subAccountId = t.sim.data.subAccounts()[0]?.id ?? '';
    cardId = t.sim.data.cards()[0]?.id ?? '';
    // 1,003 posted rows, and declined ones that are in no part.
    for (let i = 0; i < posted; i++) {
      t.sim.testing.addTransaction({
        subAccountId,
        cardId,
        amountCents: -(100 + i),
        status: 'settled',
      });
    }
    for (let i = 0; i < 5; i++) {
      t.sim.testing.addTransaction({ subAccountId, cardId, amountCents: -999, status: 'declined' });
    }
    t.clock.set(Math.max(t.clock.now(), Date.now() + 1_000));
    await settledIndexList(t, finance, `?subAccountId=${subAccountId}`);
  }, 120_000);
  afterAll(() => t?.close());

  const get = (query: string) =>
    t.request
      .get(`/api/index/transactions/export.csv?subAccountId=${subAccountId}&${query}`)
      .set(finance.headers());
  async function lines(query: string) {
    const res = await get(query);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    return parseCsv(res.text)
      .filter((r) => r.length > 1)
      .slice(1)
      .map((r) => r.join(','));
  }
  /** The screen's posted figures (its totals' `summary.posted`) as a part's query carries them. */
  async function planned() {
    const { summary } = await settledIndexTotals(t, finance, `?subAccountId=${subAccountId}`);
    return `postedRows=${summary.posted.count}&postedCents=${summary.posted.cents}`;
  }
  const postedCents = -Array.from({ length: posted }, (_, i) => 100 + i).reduce((a, b) => a + b);

  it.each([
    ['quickbooks', 999],
    ['xero', 1_000],
  ])(
    '%s: parts of at most %i rows that together are the whole file, in order',
    async (format, limit) => {
      const figures = await planned();
      expect(figures).toBe(`postedRows=${posted}&postedCents=${postedCents}`);
      const whole = await lines(`format=${format}`);
      expect(whole).toHaveLength(posted);
      const one = await lines(`format=${format}&part=1&${figures}`);
      const two = await lines(`format=${format}&part=2&${figures}`);
      expect(one).toHaveLength(limit);
      expect(two).toHaveLength(posted - limit);
      expect([...one, ...two]).toEqual(whole);
    },
  );

  it('refuses a part of a file that has none, or without the posted set it was planned from', async () => {
    const figures = `postedRows=${posted}&postedCents=${postedCents}`;
    for (const query of [
      `part=1&${figures}`,
      `format=card-console&part=1&${figures}`,
      `format=quickbooks-journal&part=1&${figures}`,
      `format=xero&part=0&${figures}`,
      // 1,003 rows are two parts.
      `format=xero&part=3&${figures}`,
      // Without the figures, or only one, or not whole numbers.
      'format=xero&part=1',
      `format=xero&part=1&postedRows=${posted}`,
      `format=quickbooks&part=1&postedCents=${postedCents}`,
      `format=xero&part=1&postedRows=1003.5&postedCents=${postedCents}`,
      `format=xero&part=1&postedRows=-1003&postedCents=${postedCents}`,
      `format=xero&part=1&postedRows=${posted}&postedCents=-5.31`,
      `format=xero&part=1&postedRows=${posted}&postedCents=`,
      `format=xero&part=1&postedRows=lots&postedCents=${postedCents}`,
      // The figures are a part's: a single file is not planned from them.
      `format=xero&${figures}`,
    ]) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.body.code, query).toBe('invalid_query');
    }
  });

  it('a part whose posted rows change while it is read breaks off, with no receipt to say it is whole', async () => {
    const figures = await planned();
    const index = await t.stores.index();
    const counted = index.postedTotal;
    let counts = 0;
    // Counted as planned before the first byte, and with one row more after the last: a sync
    // while the part was read.
    index.postedTotal = async (filter) => {
      const now = await counted.call(index, filter);
      counts++;
      return counts === 1 ? now : { count: now.count + 1, cents: now.cents - 4_242 };
    };
    try {
      const got = await download(
        `${t.url}/api/index/transactions/export.csv?subAccountId=${subAccountId}&format=xero&part=2&${figures}`,
        finance.headers(),
      );
      expect(got.status).toBe(200);
      expect(got.complete).toBe(false);
      expect(counts).toBe(2);
      const receipt = await t.request
        .get(`/api/transactions/export-receipts/${encodeURIComponent(got.requestId)}`)
        .set(finance.headers());
      expect(receipt.status).toBe(404);
      expect(receipt.body.code).toBe('export_incomplete');
      const failed = t.logs
        .map((l) => JSON.parse(l))
        .find((l) => l.requestId === got.requestId && /^csv export failed/.test(l.msg));
      expect(failed).toMatchObject({ code: 'matching_changed' });
    } finally {
      index.postedTotal = counted;
    }
  });

  // The review's case: part 1, then a charge settles and the index syncs, then part 2. Cut by
  // place, part 2 repeated part 1's last row (−$1.03 in QuickBooks' bank file, which has no id
  // to catch it) and the new −$42.42 row was in neither. Runs last: it adds a row.
  it.each([['xero'], ['quickbooks']])(
    '%s: a part asked after the posted rows changed is refused before any byte; planned anew, the parts are every row once',
    async (format) => {
      const before = await planned();
      const one = await lines(`format=${format}&part=1&${before}`);
      const added = -(4_242 + (format === 'xero' ? 0 : 1));
      t.sim.testing.addTransaction({ subAccountId, cardId, amountCents: added, status: 'settled' });
      t.clock.set(t.clock.now() + 10 * 60_000);
      await settledIndexList(t, finance, `?subAccountId=${subAccountId}`);
      const after = await planned();
      expect(after).not.toBe(before);

      const refused = await get(`format=${format}&part=2&${before}`);
      expect(refused.status, refused.text.slice(0, 300)).toBe(409);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.headers['content-disposition']).toBeUndefined();
      const [rows, cents] = [/postedRows=(\d+)/, /postedCents=(-?\d+)/].map((re) =>
        Number(re.exec(before)?.[1]),
      ) as [number, number];
      const dollars = (c: number) =>
        `-$${(-c / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
      expect(refused.body).toMatchObject({
        status: 409,
        code: 'matching_changed',
        detail: `The posted rows changed since the parts were offered: ${rows.toLocaleString('en-US')} rows, ${dollars(cents)} then; ${(rows + 1).toLocaleString('en-US')} rows, ${dollars(cents + added)} now. Download every part again, in place of any part imported already.`,
      });
      // Part 1 of the old plan is refused too.
      expect((await get(`format=${format}&part=1&${before}`)).status).toBe(409);

      // The parts planned from the figures as they are now: the whole file, each row once.
      const whole = await lines(`format=${format}`);
      expect(whole).toHaveLength(rows + 1);
      const parts = [
        ...(await lines(`format=${format}&part=1&${after}`)),
        ...(await lines(`format=${format}&part=2&${after}`)),
      ];
      expect(parts).toEqual(whole);
      expect(new Set(parts).size).toBe(parts.length);
      // The amount: Xero's second column, QuickBooks' last.
      const amountOf = (l: string) => (format === 'xero' ? l.split(',')[1] : l.split(',').at(-1));
      expect(parts.filter((l) => amountOf(l) === (added / 100).toFixed(2))).toHaveLength(1);
      // The old plan's part 1 and a part 2 cut by place repeat a row: what the check prevents.
      expect(one).not.toEqual(parts.slice(0, one.length));
    },
  );
});
