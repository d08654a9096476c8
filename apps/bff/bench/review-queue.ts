// The month close as a flow (issue 46): the simulator (100,000 transactions in one sub account)
// in a child process, the BFF in this process, first on the embedded engine, then on PostgreSQL
// (a real server the bench starts, migrated as `pnpm migrate` does, the audit trail in it as
// DATABASE_URL has it).
//   1. "Save and next", embedded: three people close three different queues at once (last
//      month's unreviewed by date; the unreviewed settled by size; the unreviewed from $75 with no
//      receipt), 60 transactions each. One step is what the screen waits for: the notes saved
//      (memo, tags, reviewed), the row after it that still matches asked, and that one's detail
//      and notes read; its place in the queue ("12 of 1,131", a count of the whole set) is asked
//      beside them, as the screen does, and not waited for. p50 and p95 of the steps.
//   2. A change of every matching transaction, 1,000 rows, on each engine: three distinct sets
//      of 1,000 (tagged first by selections of 500), each changed by one request naming its
//      filter (a memo appended, a tag, reviewed), every row and audit record written. Median and
//      slowest of the three.
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { migrateDatabase } from '../src/cli/migrate-database';
import { connectPostgresAudit } from '../src/platform/audit/postgres-audit';
import { openPostgresIndex } from '../src/platform/sql/open-postgres';
import { openStores } from '../src/stores';
import { prepareAuditDatabase } from '../src/test/engines/audit-database';
import { startPostgres } from '../src/test/engines/postgres';
import { startBffInProcess } from './bff-in-process';
import { startSimProcess } from './sim-process';

const TRANSACTIONS = 100_000;
const PEOPLE = 3;
const STEPS_EACH = 60;
const BULK_ROWS = 1_000;
const BULK_SETS = 3;

type Bff = Awaited<ReturnType<typeof startBffInProcess>>;

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

export interface ReviewQueueResult {
  /** One person alone on the largest queue. */
  aloneP95Ms: number;
  saveNextP50Ms: number;
  saveNextP95Ms: number;
  saveNextSteps: number;
  queueSizes: number[];
  bulkEmbeddedMs: number[];
  bulkPostgresMs: number[];
  markdown: string;
}

/** A signed-in person's JSON calls to the BFF. */
async function client(bff: Bff) {
  const headers = await bff.signIn();
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${bff.url}${path}`, {
      method,
      headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<T>;
  };
  return {
    get: <T>(path: string) => call<T>('GET', path),
    send: <T>(method: string, path: string, body: unknown) => call<T>(method, path, body),
  };
}

async function synced(bff: Bff) {
  const { get } = await client(bff);
  for (;;) {
    const body = await get<{ freshness: { syncing: boolean } }>('/api/index/transactions?limit=1');
    if (!body.freshness.syncing) return;
    await delay(250);
  }
}

/** Last calendar month, UTC, as the list's `from` and `to` (both included). */
function lastMonth(): string {
  const now = new Date();
  const from = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1);
  const to = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 1;
  return `from=${from}&to=${to}`;
}

/** One person closing one queue, `steps` transactions: each step's milliseconds. */
async function closeQueue(bff: Bff, filter: string, steps: number, who: number) {
  const { get, send } = await client(bff);
  const first = await get<{ items: { id: string }[] }>(`/api/index/transactions?${filter}&limit=1`);
  let id = first.items[0]?.id;
  let notes = id ? await get<{ version: number }>(`/api/transactions/${id}/notes`) : undefined;
  const { count } = await get<{ count: number }>(
    `/api/index/transactions/queue?${filter}&transactionId=${encodeURIComponent(id ?? '')}`,
  );
  const ms: number[] = [];
  for (let n = 0; n < steps && id && notes; n++) {
    const started = performance.now();
    await send('PATCH', `/api/transactions/${encodeURIComponent(id)}/notes`, {
      version: notes.version,
      memo: `Closed by person ${who}, step ${n}`,
      tags: [`close-${who}`],
      reviewed: true,
    });
    const after = await get<{ next?: { id: string } }>(
      `/api/index/transactions/queue/next?${filter}&transactionId=${encodeURIComponent(id)}`,
    );
    const next = after.next?.id;
    // The next screen: its detail and notes, and beside them (not waited for, as the screen
    // does not wait) its place in the queue, which the person reads a moment later.
    let place: Promise<unknown> = Promise.resolve();
    if (next) {
      const detail = Promise.all([
        get(`/api/transactions/${encodeURIComponent(next)}`),
        get<{ version: number }>(`/api/transactions/${encodeURIComponent(next)}/notes`),
      ]);
      place = get(
        `/api/index/transactions/queue?${filter}&transactionId=${encodeURIComponent(next)}`,
      );
      const [, nextNotes] = await detail;
      notes = nextNotes;
    }
    ms.push(performance.now() - started);
    // The person reads the screen (its place arrived) before closing this one.
    await place;
    id = next;
  }
  return { ms, count };
}

/** Three sets of 1,000 rows tagged, then each changed by one request naming its filter. */
async function bulkChanges(bff: Bff, label: string): Promise<number[]> {
  const { get, send } = await client(bff);
  const rows: { subAccountId: string; id: string }[] = [];
  let cursor: string | undefined;
  while (rows.length < BULK_ROWS * BULK_SETS) {
    const page = await get<{ items: typeof rows; nextCursor?: string }>(
      `/api/index/transactions?review=unreviewed&sort=amount&direction=asc&limit=200${
        cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      }`,
    );
    rows.push(...page.items.map(({ subAccountId, id }) => ({ subAccountId, id })));
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  const times: number[] = [];
  for (let set = 0; set < BULK_SETS; set++) {
    const tag = `bulk-${label}-${set}`;
    const members = rows.slice(set * BULK_ROWS, (set + 1) * BULK_ROWS);
    for (let i = 0; i < members.length; i += 500) {
      await send('POST', '/api/transactions/notes', {
        items: members.slice(i, i + 500),
        addTags: [tag],
      });
    }
    const started = performance.now();
    const answer = await send<{ matching: number; changed: number }>(
      'POST',
      '/api/transactions/notes/matching',
      {
        filter: { tag },
        addTags: ['month-closed'],
        memo: { text: 'Approved in the month close', mode: 'append' },
        reviewed: true,
      },
    );
    times.push(performance.now() - started);
    if (answer.changed !== BULK_ROWS) {
      throw new Error(
        `the change reached ${answer.changed} of ${answer.matching}, not ${BULK_ROWS}`,
      );
    }
  }
  return times;
}

export async function runReviewQueueBench(): Promise<ReviewQueueResult> {
  const apiKey = `bench-${randomBytes(8).toString('hex')}`;
  const sim = await startSimProcess(TRANSACTIONS, apiKey);
  const limits = { API_RATE_LIMIT_PER_MINUTE: '1000000' };
  try {
    const embedded = await startBffInProcess(sim.url, apiKey, limits);
    let steps: number[] = [];
    let alone: number[] = [];
    let queueSizes: number[] = [];
    let bulkEmbeddedMs: number[] = [];
    try {
      await synced(embedded);
      const month = lastMonth();
      const queues = [
        `review=unreviewed&${month}`,
        'review=unreviewed&status=settled&sort=amount',
        'review=unreviewed&minCents=7500&receipt=missing&status=settled&status=pending',
      ];
      // One person alone first (the largest queue), then three at once.
      alone = (await closeQueue(embedded, queues[1] as string, STEPS_EACH, 9)).ms;
      const closed = await Promise.all(
        queues.map((filter, who) => closeQueue(embedded, filter, STEPS_EACH, who)),
      );
      steps = closed.flatMap((c) => c.ms);
      queueSizes = closed.map((c) => c.count);
      bulkEmbeddedMs = await bulkChanges(embedded, 'embedded');
    } finally {
      await embedded.stop();
    }

    const logger = pino({ level: 'silent' });
    const cluster = await startPostgres();
    let bulkPostgresMs: number[] = [];
    try {
      // As an operator sets it up: `pnpm migrate` as the owner, the BFF's login a writer only.
      const { ownerUrl, appUrl: url } = await prepareAuditDatabase(cluster, 'card_console_queue');
      await migrateDatabase(ownerUrl, logger);
      const audit = await connectPostgresAudit({ url, logger });
      const stores = openStores({
        open: () => openPostgresIndex({ url, logger }),
        migrate: false,
        kind: 'postgres',
        logger,
      });
      const onPostgres = await startBffInProcess(sim.url, apiKey, limits, {
        stores,
        audit: audit.store,
      });
      try {
        await synced(onPostgres);
        bulkPostgresMs = await bulkChanges(onPostgres, 'postgres');
      } finally {
        await onPostgres.stop();
        await stores.close();
        await audit.close();
      }
    } finally {
      await cluster.stop();
    }

    const saveNextP50Ms = quantile(steps, 0.5);
    const saveNextP95Ms = quantile(steps, 0.95);
    const ms = (values: number[]) =>
      `${quantile(values, 0.5).toFixed(0)} ms (slowest ${Math.max(...values).toFixed(0)} ms)`;
    const markdown = [
      `${TRANSACTIONS.toLocaleString('en')} transactions in one sub account; the BFF in this process, the simulator in a child process.`,
      '',
      '| measure | value |',
      '|---|---|',
      `| Save and next, embedded engine: one person alone on the largest queue, ${alone.length} steps | p50 ${quantile(alone, 0.5).toFixed(0)} ms, p95 ${quantile(alone, 0.95).toFixed(0)} ms |`,
      `| Save and next, embedded engine: ${PEOPLE} people at once on three queues (${queueSizes.map((n) => n.toLocaleString('en')).join(', ')} transactions), ${steps.length} steps | p50 ${saveNextP50Ms.toFixed(0)} ms, p95 ${saveNextP95Ms.toFixed(0)} ms |`,
      `| a change of ${BULK_ROWS.toLocaleString('en')} matching transactions (memo appended, tag, reviewed; each row and its audit record), embedded engine, median of ${BULK_SETS} | ${ms(bulkEmbeddedMs)} |`,
      `| the same on PostgreSQL (audit trail in it) | ${ms(bulkPostgresMs)} |`,
    ].join('\n');
    return {
      aloneP95Ms: quantile(alone, 0.95),
      saveNextP50Ms,
      saveNextP95Ms,
      saveNextSteps: steps.length,
      queueSizes,
      bulkEmbeddedMs,
      bulkPostgresMs,
      markdown,
    };
  } finally {
    await sim.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await runReviewQueueBench();
  console.log(r.markdown);
}
