// The month close's costs (issue "close the month"): the BFF in this process with its embedded
// index, the simulator (100,000 transactions in one sub account) in a child process.
//   1. The transactions list with notes joined: 200 distinct list reads (filters, orders,
//      pages) before any transaction has notes, then the same reads once 10,000 have notes and
//      200 reads filtered on notes (unreviewed, no category, tags, missing receipt): p50 each.
//   2. The export of the 100,000 rows with their notes: rows per second.
//   3. A 10 MB photo: uploaded (type sniffed, metadata removed, stored), then its transaction's
//      notes and receipts read again, as the detail shows them: ms from the upload's start.
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { jpegWithGps } from '../src/test/receipt-files';
import { startBffInProcess } from './bff-in-process';
import { download } from './download';
import { startSimProcess } from './sim-process';

const TRANSACTIONS = 100_000;
const WITH_NOTES = 10_000;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

export interface MonthCloseResult {
  listP50Ms: number;
  listWithNotesP50Ms: number;
  notesFilterP50Ms: number;
  exportRowsPerSecond: number;
  exportRows: number;
  uploadMs: number;
  markdown: string;
}

export async function runMonthCloseBench(): Promise<MonthCloseResult> {
  const apiKey = 'bench-month-close';
  const sim = await startSimProcess(TRANSACTIONS, apiKey);
  // One person reads hundreds of pages in a minute here: the per-person limit is raised.
  const bff = await startBffInProcess(sim.url, apiKey, { API_RATE_LIMIT_PER_MINUTE: '1000000' });
  try {
    const headers = await bff.signIn();
    const get = async (path: string) => {
      const res = await fetch(`${bff.url}${path}`, { headers });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<Record<string, unknown>>;
    };
    // The first read starts the sync; wait for it.
    for (;;) {
      const body = (await get('/api/index/transactions?limit=1')) as {
        freshness: { syncing: boolean };
      };
      if (!body.freshness.syncing) break;
      await delay(250);
    }

    const statuses = ['settled', 'pending', 'declined', 'refund'];
    const queries = Array.from({ length: 200 }, (_, i) => {
      const parts = [`limit=100`, `sort=${i % 2 ? 'amount' : 'date'}`];
      if (i % 3 === 0) parts.push(`status=${statuses[i % statuses.length]}`);
      if (i % 5 === 0) parts.push(`minCents=${(i * 137) % 50_000}`);
      if (i % 7 === 0) parts.push(`q=${['air', 'cloud', 'cafe', 'fuel'][i % 4]}`);
      parts.push(`direction=${i % 4 < 2 ? 'desc' : 'asc'}`);
      return `/api/index/transactions?${parts.join('&')}`;
    });
    const timed = async (paths: string[]) => {
      const ms: number[] = [];
      for (const path of paths) {
        const started = performance.now();
        await get(path);
        ms.push(performance.now() - started);
      }
      return median(ms);
    };
    await timed(queries.slice(0, 20)); // warm
    const listP50Ms = await timed(queries);

    // Notes on 10,000 transactions, in bulk changes of 500 (a category on half, tags, reviews).
    const category = (await fetch(`${bff.url}/api/accounting-categories`, { headers }).then((r) =>
      r.json(),
    )) as { items: { id: string }[] };
    let categoryId = category.items[0]?.id;
    if (!categoryId) {
      // The bench signs in as finance, who cannot add one: the bulk change books to none.
      categoryId = undefined;
    }
    const rows: { subAccountId: string; id: string }[] = [];
    let cursor: string | undefined;
    while (rows.length < WITH_NOTES) {
      const page = (await get(
        `/api/index/transactions?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      )) as { items: { subAccountId: string; id: string }[]; nextCursor?: string };
      rows.push(...page.items.map((x) => ({ subAccountId: x.subAccountId, id: x.id })));
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    for (let i = 0; i < rows.length; i += 500) {
      const res = await fetch(`${bff.url}/api/transactions/notes`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          items: rows.slice(i, i + 500),
          addTags: [`batch-${(i / 500) % 4}`],
          ...(i % 1000 === 0 ? { reviewed: true } : {}),
          ...(categoryId && i % 1000 === 0 ? { categoryId } : {}),
        }),
      });
      if (res.status !== 200) throw new Error(`bulk: ${res.status} ${await res.text()}`);
    }
    await timed(queries.slice(0, 20));
    const listWithNotesP50Ms = await timed(queries);
    const notesQueries = queries.map((q, i) => {
      const extra = ['review=unreviewed', 'account=none', `tag=batch-${i % 4}`, 'receipt=missing'][
        i % 4
      ];
      return `${q}&${extra}`;
    });
    const notesFilterP50Ms = await timed(notesQueries);

    // The export with its notes, warm (the best of 3).
    const rates: number[] = [];
    let exportRows = 0;
    for (let round = 0; round < 3; round++) {
      const file = await download(`${bff.url}/api/index/transactions/export.csv`, headers);
      if (file.status !== 200 || !file.complete) throw new Error(`export: ${file.status}`);
      exportRows = file.rows;
      rates.push(file.rows / (file.ms / 1000));
    }
    const exportRowsPerSecond = Math.max(...rates);

    // A 10 MB photo, and the detail's reads after it.
    const photo = jpegWithGps(6, Buffer.alloc(10 * 1024 * 1024 - 400, 0x5a));
    const target = rows[WITH_NOTES - 1]?.id ?? rows[0]?.id;
    const uploadTimes: number[] = [];
    for (const id of [target, rows[WITH_NOTES - 2]?.id, rows[WITH_NOTES - 3]?.id]) {
      const started = performance.now();
      const res = await fetch(`${bff.url}/api/transactions/${id}/receipts`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'image/jpeg', 'x-file-name': 'photo.jpg' },
        body: new Uint8Array(photo),
      });
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
      await Promise.all([
        get(`/api/transactions/${id}/notes`),
        get(`/api/transactions/${id}/receipts`),
      ]);
      uploadTimes.push(performance.now() - started);
    }
    const uploadMs = median(uploadTimes);

    const markdown = [
      `${TRANSACTIONS.toLocaleString('en')} transactions in one sub account, the embedded engine, the BFF in this process; 200 distinct list reads one after another (filters, orders), each read in full.`,
      '',
      '| measure | value |',
      '|---|---|',
      `| list reads before any notes, p50 | ${listP50Ms.toFixed(1)} ms |`,
      `| the same reads with ${WITH_NOTES.toLocaleString('en')} transactions with notes (notes joined to every page), p50 | ${listWithNotesP50Ms.toFixed(1)} ms |`,
      `| the same reads filtered on notes (unreviewed, no category, a tag, no receipt), p50 | ${notesFilterP50Ms.toFixed(1)} ms |`,
      `| export with notes columns, ${exportRows.toLocaleString('en')} rows, best of 3 | ${Math.round(exportRowsPerSecond).toLocaleString('en')} rows/s |`,
      `| a 10 MB photo uploaded, then the detail's notes and receipts read, median of 3 | ${uploadMs.toFixed(0)} ms |`,
    ].join('\n');
    return {
      listP50Ms,
      listWithNotesP50Ms,
      notesFilterP50Ms,
      exportRowsPerSecond,
      exportRows,
      uploadMs,
      markdown,
    };
  } finally {
    await bff.stop();
    await sim.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await runMonthCloseBench();
  console.log(r.markdown);
}
