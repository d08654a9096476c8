// Concurrent CSV exports over real HTTP against the real simulator: the caps, the slots given
// back however an export ends, HEAD, and the circuit people's reads keep during a storm.
import http from 'node:http';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ExportCaps } from '../../platform/security/export-slots';
import { CountedExportSlots } from '../../test/counted-stores';
import { downloadWhole, parseCsv, rawDownload } from '../../test/csv';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

const SIM = { transactions: 8_000, subAccounts: 2, rateLimit: false } as const;

function exportUrl(t: TestApp, query: Record<string, string>) {
  return `${t.url}/api/transactions/export.csv?${new URLSearchParams(query)}`;
}

/** `n` exports at once, each over its own socket, all in flight before any ends. */
function exportsAtOnce(t: TestApp, who: TestSession, query: Record<string, string>, n: number) {
  return Promise.all(
    Array.from({ length: n }, () => downloadWhole(exportUrl(t, query), who.headers())),
  );
}

describe('with the default caps (2 per person, 8 in all)', () => {
  let t: TestApp;
  let finance: TestSession;
  let admin: TestSession;
  let subId: string;

  beforeAll(async () => {
    t = await startTestApp({ sim: SIM, recordSimRequests: true });
    finance = await t.signIn('finance');
    admin = await t.signIn('admin');
    subId = t.sim.data.subAccounts()[0]?.id ?? '';
  });
  afterAll(async () => t.close());
  afterEach(() => {
    t.sim.faults.clear();
    t.sim.stats.reset();
  });

  it('20 exports at once from one person: 2 run, 18 get 429 export_busy with Retry-After and cost the service nothing, while another person exports and reads', async () => {
    const rows = t.sim.data.transactions(subId).length;
    // What one export of this filter costs the service, walked alone.
    const alone = await downloadWhole(exportUrl(t, { subAccountId: subId }), finance.headers());
    expect(parseCsv(alone.text)).toHaveLength(rows + 1);
    const pagesPerExport = t.sim.stats.count('GET /transaction');
    t.sim.stats.reset();

    // Every page is slow, so all 20 arrive while the first exports still walk.
    t.sim.faults.set({ latencyMs: 20 });
    const [storm, adminExport, adminRead] = await Promise.all([
      exportsAtOnce(t, finance, { subAccountId: subId }, 20),
      downloadWhole(exportUrl(t, { subAccountId: subId }), admin.headers()),
      downloadWhole(`${t.url}/api/cards`, admin.headers()),
    ]);

    const ran = storm.filter((r) => r.status === 200);
    const refused = storm.filter((r) => r.status !== 200);
    expect(ran).toHaveLength(2);
    for (const r of ran) {
      expect(r.complete).toBe(true);
      expect(parseCsv(r.text)).toHaveLength(rows + 1);
    }
    expect(refused).toHaveLength(18);
    for (const r of refused) {
      expect(r.status).toBe(429);
      const body = apiErrorBodySchema.parse(JSON.parse(r.text));
      expect(body.code).toBe('export_busy');
      expect(body.detail).toMatch(/other exports are still running/);
      expect(body.retryAfterSeconds).toBeGreaterThan(0);
      expect(r.headers['retry-after']).toBe(String(body.retryAfterSeconds));
    }
    // The other person was not held back by the first one's cap.
    expect(adminExport.status).toBe(200);
    expect(parseCsv(adminExport.text)).toHaveLength(rows + 1);
    expect(adminRead.status).toBe(200);
    // Three exports walked (two of finance's, the admin's); the 18 refusals asked for nothing.
    // Pages are told apart by the request id each upstream call carries. A walk's range sizes
    // follow whichever range ends first, so its page count may differ from the lone one's by
    // a page or two; what is exact is who asked.
    const pagesOf = (res: { headers: Record<string, unknown> }) =>
      t.simRequests.filter(
        (r) =>
          r.url.startsWith('/transaction?') &&
          r.headers['x-request-id'] === res.headers['x-request-id'],
      ).length;
    for (const r of refused) expect(pagesOf(r)).toBe(0);
    for (const r of [...ran, adminExport]) {
      expect(pagesOf(r)).toBeGreaterThanOrEqual(pagesPerExport - 2);
      expect(pagesOf(r)).toBeLessThanOrEqual(pagesPerExport + 2);
    }
    const walkedBy = new Set(
      t.simRequests
        .filter((r) => r.url.startsWith('/transaction?'))
        .map((r) => r.headers['x-request-id']),
    );
    expect(walkedBy.size).toBe(4); // the lone export and these three

    // No slot leaked: two more at once both run.
    t.sim.faults.set({ latencyMs: 0 });
    const again = await exportsAtOnce(t, finance, { subAccountId: subId }, 2);
    expect(again.map((r) => r.status)).toEqual([200, 200]);
  });

  it("HEAD answers the download headers with no transaction page: only the sub account's name is asked for", async () => {
    const res = await t.request
      .head(
        `/api/transactions/export.csv?subAccountId=${subId}&fromDay=2026-11-01&toDay=2026-11-21`,
      )
      .set(finance.headers());
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename=operations_2026-11-01_2026-11-21.csv',
    );
    expect(res.headers['cache-control']).toContain('no-store');
    expect(t.sim.stats.count('GET /transaction')).toBe(0);
    expect(t.sim.stats.total()).toBe(t.sim.stats.count('GET /sub-account'));
    t.sim.stats.reset();

    const bad = await t.request
      .head('/api/transactions/export.csv?to=1&from=2')
      .set(finance.headers());
    expect(bad.status).toBe(400);
    expect(t.sim.stats.total()).toBe(0);
  });

  it("HEAD takes no slot: it answers while the person's exports fill their cap", async () => {
    t.sim.faults.set({ latencyMs: 20 });
    const [running, heads] = await Promise.all([
      exportsAtOnce(t, finance, { subAccountId: subId }, 2),
      Promise.all(
        Array.from({ length: 5 }, () =>
          t.request
            .head(`/api/transactions/export.csv?subAccountId=${subId}`)
            .set(finance.headers()),
        ),
      ),
    ]);
    expect(running.map((r) => r.status)).toEqual([200, 200]);
    expect(heads.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });
});

describe('slots and the total cap', () => {
  let t: TestApp;
  let finance: TestSession;
  let admin: TestSession;
  let subId: string;
  // The app's slots, swapped per test for the caps that test needs.
  let slots = new CountedExportSlots({ perPerson: 1, total: 8 });
  const useCaps = (caps: ExportCaps) => {
    slots = new CountedExportSlots(caps);
  };

  beforeAll(async () => {
    t = await startTestApp({
      sim: SIM,
      exportSlots: { acquire: (person) => slots.acquire(person) },
    });
    finance = await t.signIn('finance');
    admin = await t.signIn('admin');
    subId = t.sim.data.subAccounts()[0]?.id ?? '';
  });
  afterAll(async () => t.close());
  afterEach(() => {
    t.sim.faults.clear();
    t.sim.stats.reset();
  });

  const released = () => vi.waitFor(() => expect(slots.held).toBe(0));
  const oneMoreRuns = async () => {
    const res = await downloadWhole(exportUrl(t, { subAccountId: subId }), finance.headers());
    expect(res.status).toBe(200);
    expect(res.complete).toBe(true);
    await released();
  };

  it('gives the slot back however the export ends', async () => {
    useCaps({ perPerson: 1, total: 8 });
    const url = exportUrl(t, { subAccountId: subId });

    // Finished.
    await oneMoreRuns();

    // Failed before the first byte: a normal error answer.
    t.sim.faults.enqueue({ kind: 'status', status: 403, route: 'GET /transaction' });
    expect((await downloadWhole(url, finance.headers())).status).toBe(502);
    await released();
    await oneMoreRuns();

    // Failed after the first byte: the file ends with a row saying it is incomplete.
    t.sim.faults.enqueue(
      { kind: 'delay', ms: 0, route: 'GET /transaction' },
      { kind: 'status', status: 500, route: 'GET /transaction' },
    );
    const broken = await downloadWhole(url, finance.headers());
    expect(broken.status).toBe(200);
    expect(parseCsv(broken.text).at(-1)?.[0]).toMatch(/^INCOMPLETE: /);
    await released();
    await oneMoreRuns();

    // The client hung up mid-download.
    t.sim.faults.set({ latencyMs: 15 });
    const cut = await rawDownload(url, finance.headers(), 20_000);
    expect(cut.complete).toBe(false);
    await released();
    t.sim.faults.set({ latencyMs: 0 });
    await oneMoreRuns();

    // The client hung up before the first byte, while the first page was on its way.
    t.sim.stats.reset();
    t.sim.faults.enqueue({ kind: 'delay', ms: 400, route: 'GET /transaction' });
    const early = http.get(url, { headers: finance.headers(), agent: false });
    early.on('error', () => {});
    await vi.waitFor(() => expect(t.sim.stats.count('GET /transaction')).toBe(1));
    expect(slots.held).toBe(1);
    early.destroy();
    await released();
    await oneMoreRuns();

    // Refused filters never take one.
    const bad = await downloadWhole(
      `${t.url}/api/transactions/export.csv?subAccountId=${subId}&to=1&from=2`,
      finance.headers(),
    );
    expect(bad.status).toBe(400);
    expect(slots.held).toBe(0);
  });

  it('past the total cap everyone is refused, with a message that says so', async () => {
    useCaps({ perPerson: 20, total: 3 });
    t.sim.faults.set({ latencyMs: 20 });
    const [mine, theirs] = await Promise.all([
      exportsAtOnce(t, finance, { subAccountId: subId }, 10),
      exportsAtOnce(t, admin, { subAccountId: subId }, 4),
    ]);
    const all = [...mine, ...theirs];
    expect(all.filter((r) => r.status === 200)).toHaveLength(3);
    const refused = all.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(11);
    for (const r of refused) {
      expect(r.status).toBe(429);
      const body = apiErrorBodySchema.parse(JSON.parse(r.text));
      expect(body.code).toBe('export_busy');
      expect(body.detail).toMatch(/Too many exports are running/);
      expect(r.headers['retry-after']).toBe(String(body.retryAfterSeconds));
    }
    await released();
  });
});

describe('the circuit people keep during an export storm', () => {
  let t: TestApp;
  let finance: TestSession;
  let admin: TestSession;
  let subId: string;

  beforeAll(async () => {
    // Caps high enough that all 20 exports walk: this is about the circuit, not the caps.
    t = await startTestApp({ sim: SIM, env: { exportCaps: { perPerson: 20, total: 20 } } });
    finance = await t.signIn('finance');
    admin = await t.signIn('admin');
    subId = t.sim.data.subAccounts()[0]?.id ?? '';
  });
  afterAll(async () => t.close());

  it("exports meeting 503s open only their own circuit: a person's read still gets both of its retries", async () => {
    // Every export attempt meets a 503 (more than 20 exports × 3 attempts could use).
    t.sim.faults.enqueue(
      ...Array.from({ length: 80 }, () => ({
        kind: 'status' as const,
        status: 503,
        retryAfter: '0',
        route: 'GET /transaction',
      })),
    );
    const storm = await exportsAtOnce(t, finance, { subAccountId: subId }, 20);
    for (const r of storm) {
      expect(r.status).toBe(503);
      expect(apiErrorBodySchema.parse(JSON.parse(r.text)).code).toBe('upstream_unavailable');
    }
    // The storm did open the bulk walks' circuit.
    expect(t.logs.some((l) => l.includes('the circuit to the card service is open'))).toBe(true);
    t.sim.faults.clear();
    t.sim.stats.reset();

    // Someone else's read, meeting two 503s in a row, is retried twice and loads.
    t.sim.faults.enqueue(
      { kind: 'status', status: 503, route: 'GET /card' },
      { kind: 'status', status: 503, route: 'GET /card' },
    );
    const read = await t.request.get('/api/cards').set(admin.headers());
    expect(read.status).toBe(200);
    expect(t.sim.stats.count('GET /card')).toBe(3);
  });
});
