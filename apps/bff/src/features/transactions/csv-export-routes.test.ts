import { setTimeout as delay } from 'node:timers/promises';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { centsToDollarInput } from '@card-console/shared/money';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { downloadWhole, parseCsv, rawDownload } from '../../test/csv';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { csvColumns } from './csv-row';

let t: TestApp;
let finance: TestSession;
let subId: string;

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 8_000, subAccounts: 2 } });
  finance = await t.signIn('finance');
  subId = t.sim.data.subAccounts()[0]?.id ?? '';
});
afterAll(async () => t.close());
afterEach(() => {
  t.sim.faults.clear();
  t.sim.stats.reset();
});

/** A record's cells by column name. */
const byColumn = (record: string[]) =>
  Object.fromEntries(csvColumns.map((column, i) => [column, record[i] ?? ''])) as Record<
    (typeof csvColumns)[number],
    string
  >;

const exportUrl = (query: Record<string, string>) =>
  `/api/transactions/export.csv?${new URLSearchParams(query)}`;

/** The whole export as text (`res.body`), as the finance person downloads it. */
const downloadAsFinance = (url: string) =>
  t.request
    .get(url)
    .set(finance.headers())
    .buffer(true)
    .parse((r, cb) => {
      let text = '';
      r.on('data', (c: Buffer) => (text += c.toString('utf8')));
      r.on('end', () => cb(null, text));
    });

describe('GET /api/transactions/export.csv', () => {
  it('has exactly the rows of the filter, with the header, as an attachment', async () => {
    const all = t.sim.data.transactions(subId);
    const to = Date.parse(all[100]?.date ?? '');
    const from = Date.parse(all[all.length - 200]?.date ?? '');
    const status = 'settled';
    const wanted = all.filter((x) => {
      const at = Date.parse(x.date);
      return at >= from && at <= to && x.status === status;
    });
    const res = await downloadAsFinance(
      exportUrl({ subAccountId: subId, from: String(from), to: String(to), status }),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['cache-control']).toContain('no-store');
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename=operations_${day(from)}_${day(to)}.csv`,
    );

    const rows = parseCsv(res.body as string);
    expect(rows[0]).toEqual([...csvColumns]);
    const body = rows.slice(1).map(byColumn);
    expect(body.map((r) => r.id)).toEqual(wanted.map((x) => x.id));
    expect(body.length).toBeGreaterThan(100);
    for (const [i, x] of wanted.entries()) {
      const card = t.sim.data.card(x.cardId ?? '');
      expect(body[i]).toMatchObject({
        amount: centsToDollarInput(x.amountCents),
        // UTC when no zone is given, with its offset.
        date: x.date.replace(/(\.0+)?Z$/, '+00:00'),
        'time zone': 'UTC',
        'card id': x.cardId ?? '',
        'card name': card?.name ?? '',
        'card last 4': card?.last4 ?? '',
        'category code': x.merchantData?.categoryCode ?? '',
      });
      if (x.merchantData) expect(body[i]?.['category name'], x.id).toMatch(/\w/);
    }
    expect(body.some((r) => r['card name'] !== '')).toBe(true);
  });

  it("a whole sub account, or one card, walked in date ranges, is the service's list in its order", async () => {
    const all = t.sim.data.transactions(subId);
    const cardId = all.find((x) => x.cardId)?.cardId ?? '';
    for (const [query, wanted] of [
      [{ subAccountId: subId }, all],
      [{ subAccountId: subId, cardId }, all.filter((x) => x.cardId === cardId)],
    ] as const) {
      t.sim.stats.reset();
      const res = await downloadAsFinance(exportUrl(query));
      const ids = parseCsv(res.body as string)
        .slice(1)
        .map((r) => r[0]);
      expect(ids).toEqual(wanted.map((x) => x.id));
      expect(wanted.length).toBeGreaterThan(50);
      // The first page, then every row again in ranges (50 a page here), plus a few part-full pages.
      const pages = t.sim.stats.count('GET /transaction');
      expect(pages).toBeGreaterThan(Math.ceil(wanted.length / 50));
      expect(pages).toBeLessThan(Math.ceil(wanted.length / 50) * 1.2 + 4);
    }
  });

  it('a filter that matches nothing still gives the header row', async () => {
    const res = await downloadAsFinance(exportUrl({ subAccountId: subId, from: '0', to: '1' }));
    expect(res.status).toBe(200);
    expect(parseCsv(res.body as string)).toEqual([[...csvColumns]]);
  });

  it('escapes cells a spreadsheet would run as formulas, and keeps debits numeric', async () => {
    t.sim.faults.enqueue({
      kind: 'body',
      route: 'GET /transaction',
      body: {
        items: [
          {
            id: 'txn_formula',
            date: '2026-01-02T03:04:05.000Z',
            description: '=HYPERLINK("http://evil.test","click")',
            amountCents: -4_250,
            status: 'settled',
            referenceNumber: '@SUM(1)',
            merchantData: { description: '+cmd|calc', categoryCode: '-5411' },
          },
        ],
        metadata: { count: 1 },
      },
    });
    const res = await downloadAsFinance(exportUrl({ subAccountId: subId }));
    const row = byColumn(parseCsv(res.body as string)[1] ?? []);
    expect(row.description).toBe(`'=HYPERLINK("http://evil.test","click")`);
    expect(row.merchant).toBe(`'+cmd|calc`);
    expect(row['category code']).toBe(`'-5411`);
    expect(row.amount).toBe('-42.50');
    expect(row['reference number']).toBe(`'@SUM(1)`);
  });

  it('an upstream failure before the first byte is a normal error body', async () => {
    t.sim.faults.enqueue({ kind: 'status', status: 403, route: 'GET /transaction' });
    const res = await t.request.get(exportUrl({ subAccountId: subId })).set(finance.headers());
    expect(res.status).toBe(502);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('upstream_key_rejected');
  });

  it('an upstream failure after the first byte ends the file with a row saying it is incomplete and why, and is logged', async () => {
    // Four pages served normally, the fifth fails (500 is not retried).
    const logsBefore = t.logs.length;
    t.sim.faults.enqueue(
      ...Array.from({ length: 4 }, () => ({
        kind: 'delay' as const,
        ms: 0,
        route: 'GET /transaction',
      })),
      { kind: 'status', status: 500, route: 'GET /transaction' },
    );
    const got = await downloadWhole(
      `${t.url}${exportUrl({ subAccountId: subId })}`,
      finance.headers(),
    );
    expect(got.status).toBe(200);
    expect(got.complete).toBe(true);
    const records = parseCsv(got.text);
    const rows = records.slice(1, -1);
    expect(rows.length).toBeGreaterThan(0);
    const last = records.at(-1) ?? [];
    // One row of its own, as wide as the others, its first cell the reason.
    expect(last).toHaveLength(records[0]?.length ?? 0);
    expect(last[0]).toBe(
      `INCOMPLETE: this file stops after ${rows.length} rows. The card service failed to answer. Export again for the whole file.`,
    );
    expect(last.slice(1).every((cell) => cell === '')).toBe(true);
    // The walk failed, the client did not leave: logged as a failure with the walk's own code,
    // whatever order the response's 'close' and pipeline's end come in (it changed in Node 22).
    const lines = t.logs
      .slice(logsBefore)
      .filter((l) => l.includes('csv export'))
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'csv export failed after the first byte; the file ends with a row saying it is incomplete',
        code: 'upstream_error',
        rows: rows.length,
      }),
    ]);
  });

  it('a client that hangs up mid-download stops the upstream walk', async () => {
    t.sim.faults.set({ latencyMs: 15 });
    const got = await rawDownload(
      `${t.url}${exportUrl({ subAccountId: subId })}`,
      finance.headers(),
      20_000,
    );
    expect(got.complete).toBe(false);
    await delay(100);
    const atStop = t.sim.stats.count('GET /transaction');
    await delay(400);
    const later = t.sim.stats.count('GET /transaction');
    // 4,000 rows at 50 a page is 80 pages: the walk stopped long before.
    expect(later).toBe(atStop);
    expect(later).toBeLessThan(20);
    expect(t.logs.some((l) => l.includes('the client went away'))).toBe(true);
  });

  it('validates the filter like the list does', async () => {
    for (const query of ['', 'subAccountId=a&cursor=abc', `subAccountId=${subId}&to=1&from=2`]) {
      const res = await t.request
        .get(`/api/transactions/export.csv?${query}`)
        .set(finance.headers());
      expect(res.status, query).toBe(400);
      apiErrorBodySchema.parse(res.body);
    }
  });
});

describe("the export in the person's time zone, named after the sub account and days", () => {
  /** One row at each instant, through the service's answer. */
  const serve = (dates: string[]) =>
    t.sim.faults.enqueue({
      kind: 'body',
      route: 'GET /transaction',
      body: {
        items: dates.map((date, i) => ({
          id: `txn_tz_${i}`,
          date,
          authorizedAt: date,
          description: 'Taxi',
          amountCents: -1_000,
          status: 'settled',
          referenceNumber: `R${i}`,
        })),
        metadata: {},
      },
    });

  it('writes dates with their offset in the zone asked for, right across a daylight-saving change', async () => {
    // New York's clocks went back at 06:00Z on 1 November 2026: 01:30 happened twice.
    serve(['2026-11-01T05:30:00.000Z', '2026-11-01T06:30:00.000Z', '2026-11-03T14:14:05.000Z']);
    const res = await downloadAsFinance(exportUrl({ subAccountId: subId, tz: 'America/New_York' }));
    expect(res.status).toBe(200);
    const rows = parseCsv(res.body as string)
      .slice(1)
      .map(byColumn);
    expect(rows.map((r) => [r.date, r['authorized at'], r['time zone']])).toEqual([
      ['2026-11-01T01:30:00-04:00', '2026-11-01T01:30:00-04:00', 'America/New_York'],
      ['2026-11-01T01:30:00-05:00', '2026-11-01T01:30:00-05:00', 'America/New_York'],
      ['2026-11-03T09:14:05-05:00', '2026-11-03T09:14:05-05:00', 'America/New_York'],
    ]);
  });

  it('names the file after the sub account and the days of the bounds in the zone', async () => {
    // 1 November 00:00 to 21 November 23:59:59.999 in New York.
    const from = Date.parse('2026-11-01T04:00:00.000Z');
    const to = Date.parse('2026-11-22T04:59:59.999Z');
    const res = await t.request
      .get(exportUrl({ subAccountId: subId, from: `${from}`, to: `${to}`, tz: 'America/New_York' }))
      .set(finance.headers());
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename=operations_2026-11-01_2026-11-21.csv',
    );
    // In UTC the same bounds are other days.
    const utc = await t.request
      .get(exportUrl({ subAccountId: subId, from: `${from}`, to: `${to}` }))
      .set(finance.headers());
    expect(utc.headers['content-disposition']).toBe(
      'attachment; filename=operations_2026-11-01_2026-11-22.csv',
    );
  });

  it('takes the days from fromDay/toDay when given, and says "until" with no lower bound', async () => {
    const given = await t.request
      .get(exportUrl({ subAccountId: subId, fromDay: '2026-10-01', toDay: '2026-10-31' }))
      .set(finance.headers());
    expect(given.headers['content-disposition']).toBe(
      'attachment; filename=operations_2026-10-01_2026-10-31.csv',
    );
    const open = await t.request.get(exportUrl({ subAccountId: subId })).set(finance.headers());
    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    expect(open.headers['content-disposition']).toBe(
      `attachment; filename=operations_until_${today}.csv`,
    );
  });

  it('a name with other letters gets an ASCII filename and the UTF-8 one as filename*', async () => {
    const admin = await t.signIn('admin');
    const created = await t.request
      .post('/api/sub-accounts')
      .set(admin.headers())
      .send({ name: 'Café Zürich / 東京 "HQ"' });
    expect(created.status).toBe(201);
    const res = await t.request
      .get(exportUrl({ subAccountId: created.body.id, fromDay: '2026-11-01', toDay: '2026-11-21' }))
      .set(finance.headers());
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename=cafe-zurich-hq_2026-11-01_2026-11-21.csv; ' +
        `filename*=UTF-8''${encodeURIComponent('café-zürich-東京-hq_2026-11-01_2026-11-21.csv')}`,
    );
  });

  it('refuses a zone that is not one with a 400 naming the parameter, before any upstream call', async () => {
    for (const tz of ['Mars/Olympus_Mons', '+05:00', 'America/New York', '']) {
      const res = await t.request
        .get(exportUrl({ subAccountId: subId, tz }))
        .set(finance.headers());
      expect(res.status, tz).toBe(400);
      const body = apiErrorBodySchema.parse(res.body);
      expect(body.code).toBe('invalid_query');
      expect(body.detail).toContain('tz: must be an IANA time zone');
    }
    for (const query of [
      { fromDay: '2026-02-30' } as Record<string, string>,
      { toDay: '21/11/2026' },
      { fromDay: '2026-11-21', toDay: '2026-11-01' },
    ]) {
      const res = await t.request
        .get(exportUrl({ subAccountId: subId, ...query }))
        .set(finance.headers());
      expect(res.status, JSON.stringify(query)).toBe(400);
      apiErrorBodySchema.parse(res.body);
    }
    expect(t.sim.stats.total()).toBe(0);
  });
});
