// The audit export's walk of the audit trail goes through the one paginator: every page in
// order, and a store that repeats a cursor or never ends is a clear error, not an endless file.
import type { AuditRecord } from '@card-console/shared/api/audit';
import { describe, expect, it } from 'vitest';
import type { AuditStore } from '../../platform/audit/audit-store';
import { WALK_LIMITS } from '../../upstream/walk-limits';
import { auditCsvPages, EXPORT_PAGE_SIZE } from './audit-export';

const record = (id: number): AuditRecord =>
  ({
    id: String(id),
    at: new Date(Date.UTC(2026, 10, 1) + id * 1000).toISOString(),
    actor: 'admin@example.test',
    role: 'admin',
    action: 'card.reveal',
    outcome: 'success',
    requestId: `req-${id}`,
  }) as AuditRecord;

const noCards = { label: () => undefined };

/** A store whose page after cursor `c` is `next(c)`; counts the pages asked for. */
function store(next: (cursor: string) => { items: AuditRecord[]; nextCursor?: string }) {
  const asked: string[] = [];
  const audit: AuditStore = {
    append: async () => {
      throw new Error('not here');
    },
    list: async (options) => {
      asked.push(options.cursor ?? '');
      expect(options.limit).toBe(EXPORT_PAGE_SIZE);
      return next(options.cursor ?? '');
    },
  };
  return { audit, asked };
}

async function rowsOf(pages: AsyncIterable<{ rows: number }>) {
  let rows = 0;
  for await (const page of pages) rows += page.rows;
  return rows;
}

describe('auditCsvPages', () => {
  it('writes every page of the trail, from the first one read, in order', async () => {
    const { audit, asked } = store((cursor) =>
      cursor === '3' ? { items: [record(2), record(1)] } : { items: [], nextCursor: 'x' },
    );
    const first = { items: [record(5), record(4), record(3)], nextCursor: '3' };
    const texts: string[] = [];
    for await (const page of auditCsvPages(audit, {}, 'UTC', first, noCards)) {
      texts.push(page.text);
    }
    expect(asked).toEqual(['3']);
    expect(texts).toHaveLength(2);
    expect(texts.join('').match(/req-\d/g)).toEqual(['req-5', 'req-4', 'req-3', 'req-2', 'req-1']);
  });

  it('a store that repeats a cursor fails the export instead of writing it again and again', async () => {
    const { audit, asked } = store(() => ({ items: [record(1)], nextCursor: '1' }));
    const first = { items: [record(2)], nextCursor: '1' };
    await expect(rowsOf(auditCsvPages(audit, {}, 'UTC', first, noCards))).rejects.toMatchObject({
      status: 500,
      code: 'internal_error',
      message: 'The audit trail repeated a page.',
    });
    expect(asked).toEqual(['1']);
  });

  it('a trail that never ends stops at the page cap', async () => {
    const { audit, asked } = store((cursor) => ({
      items: [record(Number(cursor))],
      nextCursor: String(Number(cursor) - 1),
    }));
    const first = { items: [record(0)], nextCursor: '-1' };
    await expect(rowsOf(auditCsvPages(audit, {}, 'UTC', first, noCards))).rejects.toMatchObject({
      status: 500,
      message: expect.stringContaining(
        `past ${WALK_LIMITS.auditExport.maxPages.toLocaleString('en-US')} pages`,
      ),
    });
    expect(asked).toHaveLength(WALK_LIMITS.auditExport.maxPages);
  });

  it('an export past its time budget stops, measured by the clock it is given', async () => {
    let now = 0;
    const { audit } = store((cursor) => {
      now += 60_000; // each page takes a minute
      return { items: [record(Number(cursor))], nextCursor: String(Number(cursor) - 1) };
    });
    const first = { items: [record(0)], nextCursor: '-1' };
    const pages = auditCsvPages(audit, {}, 'UTC', first, noCards, { now: () => now });
    await expect(rowsOf(pages)).rejects.toMatchObject({
      status: 503,
      code: 'store_unavailable',
      message: expect.stringContaining('took longer than 30 minutes'),
    });
    expect(now).toBe(WALK_LIMITS.auditExport.timeMs);
  });
});
