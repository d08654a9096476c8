// An export's receipt: recorded only once its last row is out and before its response ends,
// asked for by the SPA to know that the body it read is the whole file.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { exportReceiptSchema } from '@card-console/shared/api/transactions';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadWhole, parseCsv, type RawDownload } from '../../test/csv';
import { testDatabase } from '../../test/engines/postgres';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';

let t: TestApp;
let finance: TestSession;
let subId: string;

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 4_000, subAccounts: 2, rateLimit: false } });
  finance = await t.signIn('finance');
  subId = t.sim.data.subAccounts()[0]?.id ?? '';
});
afterAll(async () => t?.close());

const exportPath = (sub: string) => `/api/transactions/export.csv?subAccountId=${sub}`;
const receiptPath = (requestId: string) =>
  `/api/transactions/export-receipts/${encodeURIComponent(requestId)}`;
const codeOf = (res: { body: unknown }) => apiErrorBodySchema.parse(res.body).code;
const requestIdOf = (got: { headers: http.IncomingHttpHeaders }) =>
  String(got.headers['x-request-id']);

/**
 * Downloads over a socket of its own and calls `midway` once, when the first bytes have come
 * (the walk is still running: the simulator is slowed down by the caller).
 */
function downloadWith(
  url: string,
  headers: Record<string, string>,
  midway: () => Promise<void> | void,
): Promise<RawDownload> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      let bytes = 0;
      let called = false;
      let settled = false;
      const done = () => {
        if (settled) return;
        settled = true;
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          bytes,
          complete: res.complete,
        });
      };
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (!called) {
          called = true;
          Promise.resolve(midway()).catch(reject);
        }
      });
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    req.on('error', reject);
  });
}

describe('GET /api/transactions/export-receipts/:requestId', () => {
  it('a complete export has a receipt with its rows and the bytes the client received', async () => {
    const got = await downloadWhole(`${t.url}${exportPath(subId)}`, finance.headers());
    expect(got.status).toBe(200);
    expect(got.complete).toBe(true);
    const rows = parseCsv(got.text).length - 1;
    expect(rows).toBe(t.sim.data.transactions(subId).length);

    // Asked through another session of the same person: the receipt is the person's.
    const again = await t.signIn('finance');
    const res = await t.request.get(receiptPath(requestIdOf(got))).set(again.headers());
    expect(res.status).toBe(200);
    expect(exportReceiptSchema.strict().parse(res.body)).toEqual({ rows, bytes: got.bytes });
    expect(res.headers['cache-control']).toContain('no-store');
  });

  it('a filter that matches nothing still has a receipt: the header row, no rows', async () => {
    const got = await downloadWhole(`${t.url}${exportPath(subId)}&from=1&to=2`, finance.headers());
    expect(got.complete).toBe(true);
    const res = await t.request.get(receiptPath(requestIdOf(got))).set(finance.headers());
    expect(res.body).toEqual({ rows: 0, bytes: got.bytes });
  });

  it('an export whose walk fails part-way has no receipt', async () => {
    // First page served normally, the second fails (500 is not retried).
    t.sim.faults.enqueue(
      { kind: 'delay', ms: 0, route: 'GET /transaction' },
      { kind: 'status', status: 500, route: 'GET /transaction' },
    );
    try {
      const got = await downloadWhole(`${t.url}${exportPath(subId)}`, finance.headers());
      expect(got.status).toBe(200);
      // The file says so in its last row; the receipt is what the browser goes by.
      expect(got.text).toMatch(/\r\nINCOMPLETE: [^\r\n]*\r\n$/);
      const res = await t.request.get(receiptPath(requestIdOf(got))).set(finance.headers());
      expect(res.status).toBe(404);
      expect(codeOf(res)).toBe('export_incomplete');
    } finally {
      t.sim.faults.clear();
    }
  });

  it("another person's receipt is a 404, the same as a missing one", async () => {
    const got = await downloadWhole(`${t.url}${exportPath(subId)}`, finance.headers());
    expect(got.complete).toBe(true);
    const admin = await t.signIn('admin');
    const theirs = await t.request.get(receiptPath(requestIdOf(got))).set(admin.headers());
    const missing = await t.request.get(receiptPath('never-ran-0001')).set(admin.headers());
    for (const res of [theirs, missing]) {
      expect(res.status).toBe(404);
      const body = apiErrorBodySchema.parse(res.body);
      expect(body.code).toBe('export_incomplete');
      expect(body.requestId).toBe(res.headers['x-request-id']);
    }
    expect(theirs.body.detail).toBe(missing.body.detail);
  });

  it('a request id of the wrong shape is a 400 with the error body', async () => {
    for (const id of [
      'short',
      'has space-0001',
      'x'.repeat(129),
      'semi;colon-0001',
      'a/b-000001',
    ]) {
      const res = await t.request.get(receiptPath(id)).set(finance.headers());
      expect(res.status, id).toBe(400);
      expect(codeOf(res), id).toBe('invalid_path');
    }
  });
});

describe('an export cut by the shutdown', () => {
  let cutOff: AbortController;
  let app: TestApp;
  beforeAll(async () => {
    cutOff = new AbortController();
    app = await startTestApp({ upstreamOf: t, cutOff: cutOff.signal });
  });
  afterAll(async () => app?.close());

  it('has no receipt, and its log line still counts its rows', async () => {
    const person = await app.signIn('finance');
    t.sim.faults.set({ latencyMs: 20 });
    try {
      const got = await downloadWith(`${app.url}${exportPath(subId)}`, person.headers(), () =>
        cutOff.abort(),
      );
      expect(got.status).toBe(200);
      expect(got.complete).toBe(false);
      const res = await app.request.get(receiptPath(requestIdOf(got))).set(person.headers());
      expect(res.status).toBe(404);
      expect(codeOf(res)).toBe('export_incomplete');
      const cut = app.logs.map((l) => JSON.parse(l)).find((l) => /^csv export cut/.test(l.msg));
      expect(cut).toEqual(expect.objectContaining({ rows: expect.any(Number) }));
      expect(app.logs.some((l) => l.includes('csv export finished'))).toBe(false);
    } finally {
      t.sim.faults.clear();
    }
  });
});

describe('receipts in PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let admin: pg.Client;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    database = await testDatabase();
    const clock = new ManualClock();
    const shared = { databaseUrl: database.url };
    const env = { sessionSecret: randomBytes(32).toString('hex') };
    a = await startTestApp({ clock, shared, env, upstreamOf: t });
    b = await startTestApp({ clock, shared, env, upstreamOf: t });
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await admin?.end();
    await database?.stop();
  });

  it('an export read through one replica has its receipt on the other', async () => {
    const person = await a.signIn('finance');
    const got = await downloadWhole(`${a.url}${exportPath(subId)}`, person.headers());
    expect(got.complete).toBe(true);
    const res = await b.request.get(receiptPath(requestIdOf(got))).set(person.headers());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ rows: parseCsv(got.text).length - 1, bytes: got.bytes });
  });

  it('when PostgreSQL refuses the receipt (its disk full), the export breaks off: no clean end, no receipt', async () => {
    const person = await a.signIn('finance');
    const logsBefore = a.logs.length;
    t.sim.faults.set({ latencyMs: 20 });
    let got: RawDownload;
    try {
      // Writes are refused from the first bytes on (reads still work): the export slot was
      // taken already, the receipt comes last.
      got = await downloadWith(`${a.url}${exportPath(subId)}`, person.headers(), async () => {
        // As a full disk answers a write (SQLSTATE 53100); reads go on.
        await admin.query(`CREATE FUNCTION refuse_receipt() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'
             USING ERRCODE = 'disk_full'; END $$`);
        await admin.query(
          'CREATE TRIGGER refuse_receipt BEFORE INSERT OR UPDATE ON export_receipt FOR EACH ROW EXECUTE FUNCTION refuse_receipt()',
        );
      });
    } finally {
      await admin.query('DROP TRIGGER IF EXISTS refuse_receipt ON export_receipt');
      await admin.query('DROP FUNCTION IF EXISTS refuse_receipt()');
      t.sim.faults.clear();
    }
    expect(got.status).toBe(200);
    expect(got.complete).toBe(false);
    const res = await b.request.get(receiptPath(requestIdOf(got))).set(person.headers());
    expect(res.status).toBe(404);
    const kept = await admin.query('SELECT 1 FROM export_receipt WHERE request_id = $1', [
      requestIdOf(got),
    ]);
    expect(kept.rows).toEqual([]);
    const lines = a.logs
      .slice(logsBefore)
      .map((l) => JSON.parse(l))
      .filter((l) => String(l.msg).startsWith('csv export'));
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'csv export failed: its receipt could not be recorded; connection destroyed',
        code: 'store_unavailable',
        rows: t.sim.data.transactions(subId).length,
      }),
    ]);
  });
});
