import type { AuditRecord } from '@card-console/shared/api/audit';
import { exportReceiptSchema } from '@card-console/shared/api/transactions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewAuditRecord } from '../../platform/audit/audit-store';
import { parseCsv, rawDownload, textBody } from '../../test/csv';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { ManualClock } from '../../test/manual-clock';
import { testPan } from '../../test/test-pan';
import { EXPORT_PAGE_SIZE } from './audit-export';

// 1 November 2026, 12:00 UTC: New York is on EST (-05:00) from the 1st, Kolkata at +05:30.
const START = Date.UTC(2026, 10, 1, 12);
const DAY = 86_400_000;

let t: TestApp;
let session: { admin: TestSession; at: number } | undefined;
beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(START), sim: { transactions: 10 } });
});
afterAll(() => t.close());

/** An admin session, signed in again once the tests' clock has moved past its idle time. */
async function adminSession(): Promise<TestSession> {
  if (!session || t.clock.now() - session.at > t.config.session.idleMs / 2) {
    session = { admin: await t.signIn('admin'), at: t.clock.now() };
  }
  return session.admin;
}

const record = (overrides: Partial<NewAuditRecord>): NewAuditRecord => ({
  actor: 'ada@example.com',
  role: 'admin',
  action: 'card.reveal',
  outcome: 'success',
  requestId: `r-${Math.random().toString(36).slice(2)}`,
  ...overrides,
});

/** A download as the browser gets it: status, headers and the CSV text. */
async function exportCsv(query: string, as?: TestSession) {
  const res = await t.request
    .get(`/api/audit/export.csv?${query}`)
    .set((as ?? (await adminSession())).headers())
    .buffer(true)
    .parse(textBody);
  const text = String(res.body);
  return { status: res.status, headers: res.headers, text };
}

/** The file's rows as objects keyed by its header. */
function rowsOf(text: string): Record<string, string | undefined>[] {
  const [header, ...rows] = parseCsv(text);
  return rows.map((row) => Object.fromEntries((header ?? []).map((name, i) => [name, row[i]])));
}

describe('GET /api/audit/export.csv', () => {
  it('exports every record the filters match, newest first, past many store pages, with local and UTC times', async () => {
    const written: AuditRecord[] = [];
    const total = EXPORT_PAGE_SIZE * 2 + 7;
    for (let i = 0; i < total; i++) {
      if (i % 100 === 0) t.clock.advance(DAY / 10);
      written.push(
        await t.audit.append(
          record({ actor: 'walk@example.com', outcome: i % 3 ? 'success' : 'denied' }),
        ),
      );
    }
    const res = await exportCsv('actor=Walk@Example.com&outcome=success&tz=America/New_York');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header] = parseCsv(res.text);
    expect(header?.slice(0, 4)).toEqual(['id', 'local time (America/New_York)', 'UTC time', 'who']);
    const rows = rowsOf(res.text);
    const want = written.filter((r) => r.outcome === 'success').reverse();
    expect(rows.map((r) => r.id)).toEqual(want.map((r) => r.id));
    expect(rows.length).toBeGreaterThan(EXPORT_PAGE_SIZE);
    const newest = want[0] as AuditRecord;
    expect(rows[0]).toMatchObject({
      'UTC time': newest.at,
      who: 'walk@example.com',
      role: 'admin',
      action: 'card.reveal',
      outcome: 'success',
      'request id': newest.requestId,
    });
    // The same instant, as a New York wall clock with its offset.
    const local = rows[0]?.['local time (America/New_York)'] ?? '';
    expect(local).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-05:00$/);
    expect(Date.parse(local)).toBe(Math.floor(Date.parse(newest.at) / 1000) * 1000);
  });

  it('writes each time in the zone asked for, with that moment’s offset', async () => {
    t.clock.advance(DAY);
    const at = await t.audit.append(record({ actor: 'zone@example.com' }));
    const utc = Date.parse(at.at);
    const second = new Date(utc - (utc % 1000)).toISOString().slice(0, 19);
    for (const [tz, offset, shift] of [
      ['Asia/Kolkata', '+05:30', 5.5],
      ['Europe/London', '+00:00', 0],
      ['America/Los_Angeles', '-08:00', -8],
      ['UTC', '+00:00', 0],
    ] as const) {
      const res = await exportCsv(`actor=zone@example.com&tz=${tz}`);
      expect(res.status, tz).toBe(200);
      const [row] = rowsOf(res.text);
      const wall = new Date(Date.parse(`${second}Z`) + shift * 3_600_000).toISOString();
      expect(row?.[`local time (${tz})`], tz).toBe(`${wall.slice(0, 19)}${offset}`);
    }
  });

  it('names the file after the filter’s days in the person’s zone', async () => {
    // 1 Nov 04:00 UTC is the first instant of 1 November in New York (EDT ends at 06:00 UTC).
    const from = Date.UTC(2026, 10, 1, 4);
    const to = Date.UTC(2026, 10, 22, 5) - 1;
    const res = await exportCsv(`from=${from}&to=${to}&tz=America/New_York`);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="audit_2026-11-01_2026-11-21.csv"',
    );
    const open = await exportCsv('tz=Asia/Tokyo&actor=nobody@example.com');
    const today = new Date(t.clock.now() + 9 * 3_600_000).toISOString().slice(0, 10);
    expect(open.headers['content-disposition']).toBe(
      `attachment; filename="audit_until_${today}.csv"`,
    );
  });

  it('neutralizes anything a spreadsheet would run, in every text a person typed', async () => {
    await t.audit.append(
      record({
        actor: 'formula@example.com',
        action: 'card.update',
        reason: '=HYPERLINK("http://evil.example","x")',
        detail: '+cmd|calc',
        target: '@SUM(1+1)',
        before: { name: '-2+3', maximumCents: 50_000 },
        after: { name: '\tTab', maximumCents: 25_000 },
      }),
    );
    const res = await exportCsv('actor=formula@example.com');
    const [row] = rowsOf(res.text);
    expect(row).toMatchObject({
      reason: `'=HYPERLINK("http://evil.example","x")`,
      detail: "'+cmd|calc",
      target: "'@SUM(1+1)",
      'name before': "'-2+3",
      'name after': "'\tTab",
      'maximum before': '500.00',
      'maximum after': '250.00',
    });
    // RFC 4180: the quotes are doubled inside a quoted field.
    expect(res.text).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
  });

  it('exports refusals of one kind, each naming what was attempted', async () => {
    const finance = await t.signIn('finance');
    const card = t.sim.data.cards()[0];
    const cardId = card?.id ?? '';
    expect(
      (await t.request.post(`/api/cards/${cardId}/reveal`).set(finance.headers()).send({})).status,
    ).toBe(403);
    expect(
      (await t.request.patch(`/api/cards/${cardId}`).set(finance.headers()).send({})).status,
    ).toBe(403);
    const res = await exportCsv(
      'actor=finance@demo.test&action=access.denied&attempted=card.reveal',
    );
    const rows = rowsOf(res.text);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'access.denied',
      'attempted action': 'card.reveal',
      outcome: 'denied',
      'card id': cardId,
      // Named from the card directory, as the card is called now.
      'card name': card?.name,
      'last 4': card?.last4,
    });
    const both = rowsOf((await exportCsv('actor=finance@demo.test&action=access.denied')).text);
    expect(both.map((r) => r['attempted action'])).toEqual(['card.update', 'card.reveal']);
  });

  it('records the export itself, with its filters, before any record leaves', async () => {
    const from = Date.UTC(2026, 10, 1);
    const res = await exportCsv(
      `actor=Ada@Example.com&action=card.reveal&outcome=success&from=${from}&tz=Europe/Paris`,
    );
    expect(res.status).toBe(200);
    const requestId = res.headers['x-request-id'];
    const { items } = await t.audit.list({ limit: 1, filter: { action: 'audit.export' } });
    expect(items[0]).toMatchObject({
      actor: t.credentials.admin.email,
      role: 'admin',
      action: 'audit.export',
      outcome: 'success',
      detail:
        'actor=ada@example.com action=card.reveal outcome=success from=2026-11-01T00:00:00.000Z tz=Europe/Paris',
      requestId,
    });
    // Unfiltered, the file's newest row is this very export.
    const all = await exportCsv('tz=UTC');
    const [first] = rowsOf(all.text);
    expect(first).toMatchObject({
      action: 'audit.export',
      detail: 'all records tz=UTC',
      'request id': all.headers['x-request-id'],
    });
  });

  it('masks a card number typed into a filter in the export’s record', async () => {
    const pan = testPan(17);
    const res = await exportCsv(`cardId=${pan}`);
    expect(res.status).toBe(200);
    const { items } = await t.audit.list({ limit: 1, filter: { action: 'audit.export' } });
    expect(items[0]?.detail).toBe('cardId=[redacted-number] tz=UTC');
    expect(JSON.stringify(items[0])).not.toContain(pan);
  });

  it('sends just the header for no match, and the receipt of what was sent', async () => {
    const res = await exportCsv('actor=nobody@example.com&tz=Europe/Paris');
    expect(res.status).toBe(200);
    expect(parseCsv(res.text)).toHaveLength(1);
    const receipt = await t.request
      .get(`/api/transactions/export-receipts/${res.headers['x-request-id']}`)
      .set((await adminSession()).headers());
    expect(exportReceiptSchema.parse(receipt.body)).toEqual({
      rows: 0,
      bytes: Buffer.byteLength(res.text),
    });
    const some = await exportCsv('actor=zone@example.com');
    const again = await t.request
      .get(`/api/transactions/export-receipts/${some.headers['x-request-id']}`)
      .set((await adminSession()).headers());
    expect(again.body).toEqual({ rows: 1, bytes: Buffer.byteLength(some.text) });
  });

  it('answers HEAD with the download’s headers, exporting and recording nothing', async () => {
    const before = (await t.audit.list({ limit: 1 })).items[0]?.id;
    const res = await t.request
      .head('/api/audit/export.csv?tz=UTC')
      .set((await adminSession()).headers());
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="audit_until_/);
    expect((await t.audit.list({ limit: 1 })).items[0]?.id).toBe(before);
  });

  it.each([
    ['an unknown zone', 'tz=Mars/Olympus', /tz: must be a time zone name/],
    ['a zone with a formula', 'tz=%3D1%2B1', /tz: must be a time zone name/],
    ['an unknown action', 'action=card.delete', /action/],
    ['an unknown attempt', 'attempted=card.delete', /attempted/],
    ['"from" after "to"', 'from=2000&to=1000', /"from" must not be after "to"/],
    ['a repeated filter', 'tz=UTC&tz=Europe/Paris', /"tz" must appear once/],
    ['an unknown parameter', 'cursor=5', /cursor/],
  ])(
    'refuses %s with 400 invalid_query and the error body, recording nothing',
    async (_what, query, message) => {
      const before = (await t.audit.list({ limit: 1 })).items[0]?.id;
      const res = await t.request
        .get(`/api/audit/export.csv?${query}`)
        .set((await adminSession()).headers());
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        type: '/problems/invalid_query',
        title: 'Invalid query',
        status: 400,
        code: 'invalid_query',
        detail: expect.stringMatching(message),
        requestId: expect.any(String),
      });
      expect((await t.audit.list({ limit: 1 })).items[0]?.id).toBe(before);
    },
  );

  it('refuses finance with 403, recorded as a denied export', async () => {
    const finance = await t.signIn('finance');
    const res = await exportCsv('tz=UTC', finance);
    expect(res.status).toBe(403);
    const { items } = await t.audit.list({ limit: 1 });
    expect(items[0]).toMatchObject({
      actor: 'finance@demo.test',
      action: 'access.denied',
      attempted: 'audit.export',
      target: 'GET /api/audit/export.csv',
    });
  });

  it('breaks the download off when the trail cannot be read part-way, never ending it cleanly', async () => {
    for (let i = 0; i < EXPORT_PAGE_SIZE + 1; i++) {
      await t.audit.append(record({ actor: 'broken@example.com' }));
    }
    const list = t.audit.list.bind(t.audit);
    t.audit.list = async (options) => {
      if (options.cursor !== undefined) throw new Error('the trail went away');
      return list(options);
    };
    try {
      const got = await rawDownload(
        `${t.url}/api/audit/export.csv?actor=broken@example.com`,
        (await adminSession()).headers(),
      );
      expect(got.status).toBe(200);
      expect(got.complete).toBe(false);
      expect(got.bytes).toBeGreaterThan(0);
    } finally {
      t.audit.list = list;
    }
  });
});
