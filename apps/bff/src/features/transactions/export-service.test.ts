import { setImmediate as tick } from 'node:timers/promises';
import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../core/app-error';
import type { Who } from '../../platform/sessions/who';
import type { CallContext, TransactionListParams, UpstreamClient } from '../../upstream/client';
import { createExportService, EXPORT_PAGES_AHEAD, EXPORT_WALKS } from './export-service';

const who = { requestId: 'req-test', actor: { role: 'finance' } } as Who;

interface FakeOptions {
  pageSize: number;
  /** Newest first by (date, id), as the simulator lists; otherwise a fixed shuffle. */
  newestFirst: boolean;
  /** The n-th request (1-based) fails. */
  failAt?: number;
  /** Every page hands back the cursor it was asked with. */
  stuckCursor?: boolean;
  /** Answers at once (a resolved promise), not after a few turns of the event loop. */
  instant?: boolean;
}

/** A card service over rows in memory: date bounds, cursors tied to their filter, page size. */
function fakeService(rows: UpstreamTransaction[], o: FakeOptions) {
  const ordered = [...rows].sort((a, b) =>
    o.newestFirst
      ? micros(b) - micros(a) || b.id.localeCompare(a.id)
      : hash(a.id) - hash(b.id) || a.id.localeCompare(b.id),
  );
  const dates = ordered.map(micros);
  const requests: TransactionListParams[] = [];
  const contexts: CallContext[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const service = {
    async listTransactionsDeferred(ctx: CallContext, q: TransactionListParams) {
      requests.push(q);
      contexts.push(ctx);
      const n = requests.length;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        if (!o.instant) for (let i = n % 3; i >= 0; i--) await tick(); // answers overtake each other
        if (ctx.signal?.aborted) throw new Error('aborted');
        if (n === o.failAt) throw new AppError(502, 'upstream_unavailable', 'down');
        const key = `${q.fromDate}/${q.toDate}`;
        const [cursorKey, at] = q.cursor ? q.cursor.split('@') : [key, '0'];
        if (cursorKey !== key)
          throw new AppError(400, 'upstream_rejected', 'cursor of another filter');
        // Compared to the microsecond, as a service keeping finer dates than its filters would.
        const from = (q.fromDate ?? 0) * 1000;
        const to = q.toDate === undefined ? Number.MAX_SAFE_INTEGER : q.toDate * 1000;
        const matching = ordered.filter(
          (_, i) => from <= (dates[i] as number) && (dates[i] as number) <= to,
        );
        const offset = Number(at);
        const items = matching.slice(offset, offset + o.pageSize);
        const more = offset + o.pageSize < matching.length;
        const nextCursor = o.stuckCursor
          ? (q.cursor ?? `${key}@0`)
          : `${key}@${offset + o.pageSize}`;
        return { metadata: more ? { nextCursor } : {}, items: () => items };
      } finally {
        inFlight -= 1;
      }
    },
  };
  return {
    upstream: service as unknown as UpstreamClient,
    ordered,
    requests,
    contexts,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
  };
}

function hash(s: string): number {
  let h = 7;
  for (const c of s) h = (h * 31 + c.charCodeAt(0)) % 1_000_003;
  return h;
}

/** Microseconds since the epoch of a date written with three or six second decimals. */
function micros(t: UpstreamTransaction): number {
  return Date.parse(t.date) * 1000 + Number(/\.\d{3}(\d{3})Z$/.exec(t.date)?.[1] ?? 0);
}

/** A transaction at `ms`, plus `micro` microseconds written as three more decimals. */
function transaction(i: number, ms: number, micro?: number): UpstreamTransaction {
  const iso = new Date(ms).toISOString();
  return {
    id: `txn_${String(i).padStart(5, '0')}`,
    date: micro === undefined ? iso : iso.replace('Z', `${String(micro).padStart(3, '0')}Z`),
    description: 'Coffee',
    amountCents: -450,
    status: 'settled',
    referenceNumber: `ref${i}`,
  };
}

const idsOf = (chunks: Buffer[]) =>
  Buffer.concat(chunks)
    .toString('utf8')
    .split('\r\n')
    .filter(Boolean)
    .map((line) => line.split(',')[0]);

async function exportAll(
  fake: ReturnType<typeof fakeService>,
  filter: { from?: number; to?: number } = {},
) {
  const rows = await createExportService(fake).open(
    who,
    { subAccountId: 'sub_1', ...filter },
    new AbortController().signal,
  );
  const chunks: Buffer[] = [];
  for await (const chunk of rows.chunks) chunks.push(chunk);
  return { ids: idsOf(chunks), rowsOut: rows.rowsOut(), pagesRead: rows.pagesRead() };
}

const BASE = Date.UTC(2026, 0, 1);

describe('export walk split into date ranges', () => {
  it('exports every row of the filter exactly once, in the service order when it lists newest first', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.oneof(
              fc.integer({ min: 0, max: 86_400_000 }), // spread over a day
              fc.integer({ min: 0, max: 50 }), // bunched, with repeats
              fc.integer({ min: 40_000_000_000, max: 40_000_000_100 }), // far older, after a gap
            ),
            // Whole milliseconds, or microseconds too (between two range bounds).
            fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }),
          ),
          { maxLength: 400 },
        ),
        fc.integer({ min: 1, max: 12 }),
        fc.boolean(),
        fc.option(fc.integer({ min: 0, max: 86_400_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 86_400_000 }), { nil: undefined }),
        async (ages, pageSize, newestFirst, a, b) => {
          const rows = ages.map(([age, micro], i) =>
            transaction(i, BASE + 86_400_000 - age, micro),
          );
          const fake = fakeService(rows, { pageSize, newestFirst });
          const filter: { from?: number; to?: number } = {};
          if (a !== undefined) filter.from = BASE + Math.min(a, b ?? a);
          if (b !== undefined) filter.to = BASE + Math.max(b, a ?? b);
          const wanted = fake.ordered
            .filter((t) => {
              const at = micros(t);
              return (filter.from ?? 0) * 1000 <= at && at <= (filter.to ?? 2 ** 43) * 1000;
            })
            .map((t) => t.id);

          const got = await exportAll(fake, filter);
          if (newestFirst) expect(got.ids).toEqual(wanted);
          else expect([...got.ids].sort()).toEqual([...wanted].sort());
          expect(got.rowsOut).toBe(wanted.length);
          expect(fake.maxInFlight()).toBeLessThanOrEqual(EXPORT_WALKS);
          if (wanted.length <= pageSize) expect(fake.requests).toHaveLength(1);
        },
      ),
      { numRuns: 150 },
    );
  });

  // Ten rows a millisecond, on whole milliseconds or half a millisecond past them (a service
  // keeping finer dates than its filters): no row lost or repeated where ranges meet.
  it.each([
    ['on whole milliseconds', undefined],
    ['between whole milliseconds', 500],
  ])('rows %s where ranges meet are exported once', async (_, micro) => {
    const rows = Array.from({ length: 3_000 }, (_, i) =>
      transaction(i, BASE - Math.floor(i / 10), micro),
    );
    const fake = fakeService(rows, { pageSize: 10, newestFirst: true });
    const got = await exportAll(fake);
    expect(fake.requests.filter((q) => q.toDate !== undefined).length).toBeGreaterThan(5);
    expect(got.ids).toEqual(fake.ordered.map((t) => t.id));
  });

  it('walks two ranges at once on a long export, and asks for only a few pages more', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => transaction(i, BASE - i * 60_000));
    const fake = fakeService(rows, { pageSize: 50, newestFirst: true });
    const got = await exportAll(fake);
    expect(got.ids).toEqual(fake.ordered.map((t) => t.id));
    expect(fake.maxInFlight()).toBe(EXPORT_WALKS);
    // Every request after the first is bounded by dates, and 400 full pages become at most ~5 % more.
    expect(
      fake.requests.slice(1).every((q) => q.fromDate !== undefined || q.toDate !== undefined),
    ).toBe(true);
    expect(got.pagesRead).toBeGreaterThan(400);
    expect(got.pagesRead).toBeLessThanOrEqual(420);
  });

  it('asks for every page as a bulk walk, whose retries never come from the budget reads use', async () => {
    const rows = Array.from({ length: 2_000 }, (_, i) => transaction(i, BASE - i * 60_000));
    const fake = fakeService(rows, { pageSize: 50, newestFirst: true });
    await exportAll(fake);
    expect(fake.contexts.length).toBeGreaterThan(40);
    expect(fake.contexts.every((ctx) => ctx.bulk === true)).toBe(true);
  });

  it('checks and formats one page per turn of the event loop, so other work gets turns in between', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => transaction(i, BASE - i * 60_000));
    const fake = fakeService(rows, { pageSize: 50, newestFirst: true, instant: true });
    const service = createExportService(fake);
    // Two exports at once, their pages answered at once: only the turns hold them back.
    const exports = await Promise.all(
      [1, 2].map(() => service.open(who, { subAccountId: 'sub_1' }, new AbortController().signal)),
    );
    const asked = [fake.requests.length];
    for (let turn = 0; turn < 4; turn++) {
      await tick();
      asked.push(fake.requests.length);
    }
    // Each turn formats one page of one export, and that walk then asks for one more page.
    const perTurn = asked.slice(1).map((n, i) => n - (asked[i] as number));
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(2);
    for (const exported of exports) {
      const chunks: Buffer[] = [];
      for await (const chunk of exported.chunks) chunks.push(chunk);
      expect(idsOf(chunks)).toEqual(fake.ordered.map((t) => t.id));
    }
  });

  // Even, and a first page far sparser than the rest (one range then holds nearly everything).
  it.each([
    ['even', (i: number) => BASE - i * 60_000],
    ['denser than guessed', (i: number) => (i < 10 ? BASE - i * 3_600_000 : BASE - 40_000_000 - i)],
  ])('reads only so far ahead of a download that does not take its rows (%s)', async (_, at) => {
    const rows = Array.from({ length: 5_000 }, (_, i) => transaction(i, at(i)));
    const fake = fakeService(rows, { pageSize: 10, newestFirst: true });
    const exported = await createExportService(fake).open(
      who,
      { subAccountId: 'sub_1' },
      new AbortController().signal,
    );
    await exported.chunks.next();
    for (let i = 0; i < 200; i++) await tick();
    const held = fake.requests.length;
    // The first page and the one taken; then ranges start while all hold fewer than twice a
    // range's read-ahead, and the walks reading can each add one read-ahead more.
    expect(held).toBeLessThanOrEqual(2 + (2 + EXPORT_WALKS) * EXPORT_PAGES_AHEAD);
    for (let i = 0; i < 200; i++) await tick();
    expect(fake.requests.length).toBe(held);
    const rest: Buffer[] = [];
    for await (const chunk of exported.chunks) rest.push(chunk);
    expect(exported.rowsOut()).toBe(5_000);
    expect(idsOf(rest)).toEqual(fake.ordered.slice(10).map((t) => t.id));
  });

  it('a failure in a later range ends the export after the rows before it', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => transaction(i, BASE - i * 60_000));
    const fake = fakeService(rows, { pageSize: 20, newestFirst: true, failAt: 40 });
    const exported = await createExportService(fake).open(
      who,
      { subAccountId: 'sub_1' },
      new AbortController().signal,
    );
    const chunks: Buffer[] = [];
    let failure: unknown;
    try {
      for await (const chunk of exported.chunks) chunks.push(chunk);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(AppError);
    const ids = idsOf(chunks);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).toEqual(fake.ordered.slice(0, ids.length).map((t) => t.id));
    expect(ids.length).toBeLessThan(5_000);
  });

  it('stops every walk when the browser goes away', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => transaction(i, BASE - i * 60_000));
    const fake = fakeService(rows, { pageSize: 10, newestFirst: true });
    const gone = new AbortController();
    const exported = await createExportService(fake).open(
      who,
      { subAccountId: 'sub_1' },
      gone.signal,
    );
    await exported.chunks.next();
    gone.abort();
    const atStop = fake.requests.length;
    for (let i = 0; i < 100; i++) await tick();
    // What was in flight may finish; nothing more is asked for.
    expect(fake.requests.length).toBeLessThanOrEqual(atStop);
    expect(fake.inFlight()).toBe(0);
    const rest = await exported.chunks.next();
    expect(rest.done).toBe(true);
  });

  it('a cursor that does not move is a bad upstream answer, not an endless walk', async () => {
    const rows = Array.from({ length: 500 }, (_, i) => transaction(i, BASE - i * 60_000));
    const fake = fakeService(rows, { pageSize: 10, newestFirst: true, stuckCursor: true });
    await expect(exportAll(fake)).rejects.toMatchObject({ code: 'upstream_invalid_response' });
  });
});
