// The BFF's month close for the web tests: bulk changes of notes applied to the index's rows
// in place (so the lists served by `serveIndex` over the same rows show them), as the BFF
// documents them, what still needs attention counted over the same rows, and merchant rules.

import {
  type MerchantRule,
  merchantRuleCreateSchema,
} from '@card-console/shared/api/accounting-categories';
import {
  type BulkNotesResult,
  bulkNotesChangeSchema,
  type Notes,
} from '@card-console/shared/api/notes';
import { distinctTags, MAX_TAGS } from '@card-console/shared/api/notes-rules';
import {
  type Attention,
  attentionQuerySchema,
  type IndexTransaction,
  RECEIPT_FROM_CENTS_DEFAULT,
  SPEND_STATUSES,
} from '@card-console/shared/api/transaction-index';
import { HttpResponse } from 'msw';
import { accountingCategories, transactionNotes } from './fixtures';
import { listNotes, queryOf } from './serve-index';
import { apiError, quietAttention, serve, server } from './server';

const noNotes = listNotes();

/**
 * POST /api/transactions/notes over `rows`: the body checked with the BFF's schema; a
 * reviewed row takes no category or tag unless the change reopens it, a row would-be past
 * MAX_TAGS is skipped, a row not among `rows` is not found.
 */
export function serveBulkNotes(rows: IndexTransaction[]) {
  server.use(
    serve('notes.updateMany', async ({ request }) => {
      const body = bulkNotesChangeSchema.parse(await request.json());
      const result: BulkNotesResult = { changed: [], skipped: [] };
      for (const item of body.items) {
        const row = rows.find((r) => r.id === item.id && r.subAccountId === item.subAccountId);
        if (!row) {
          result.skipped.push({ transactionId: item.id, reason: 'not_found' });
          continue;
        }
        const notes = row.notes ?? noNotes;
        const touches = body.categoryId !== undefined || body.addTags !== undefined;
        if (notes.reviewed && touches && body.reviewed !== false) {
          result.skipped.push({ transactionId: row.id, reason: 'reviewed' });
          continue;
        }
        const tags = distinctTags([...notes.tags, ...(body.addTags ?? [])]);
        if (tags.length > MAX_TAGS) {
          result.skipped.push({ transactionId: row.id, reason: 'too_many_tags' });
          continue;
        }
        row.notes = {
          ...notes,
          categoryId: body.categoryId === undefined ? notes.categoryId : body.categoryId,
          tags,
          reviewed: body.reviewed ?? notes.reviewed,
        };
        result.changed.push(notesOfRow(row));
      }
      return HttpResponse.json(result);
    }),
  );
}

function notesOfRow(row: IndexTransaction): Notes {
  const notes = row.notes ?? noNotes;
  return transactionNotes({
    transactionId: row.id,
    memo: notes.memo,
    categoryId: notes.categoryId,
    tags: notes.tags,
    review: notes.reviewed
      ? { state: 'reviewed', by: 'finance@example.test', at: '2026-03-06T09:00:00.000Z' }
      : { state: 'unreviewed' },
    version: 1,
  });
}

/**
 * GET /api/index/attention counted over `rows` as the list's own filters count them: spend of
 * `receiptFromCents` or more (either sign) with no receipt, unreviewed, no category, declined.
 */
export function serveAttention(rows: IndexTransaction[]) {
  server.use(
    serve('index.attention', ({ request }) => {
      const q = attentionQuerySchema.parse(queryOf(request.url));
      const receiptFromCents = q.receiptFromCents ?? RECEIPT_FROM_CENTS_DEFAULT;
      const inPeriod = rows.filter((t) => {
        const at = Date.parse(t.date);
        return (q.from === undefined || at >= q.from) && (q.to === undefined || at <= q.to);
      });
      // docs/money.md: what moved money or will (settled, refund, dispute, pending) is to review;
      // declined, canceled and failed are counted apart; reversed and returned in neither.
      const moved = inPeriod.filter((t) =>
        (SPEND_STATUSES as readonly string[]).includes(t.status),
      );
      const attempted = inPeriod.filter((t) =>
        ['declined', 'canceled', 'failed'].includes(t.status),
      );
      const tally = (kept: IndexTransaction[]) => ({
        count: kept.length,
        debitCents: kept.reduce((n, t) => n + Math.max(-t.amountCents, 0), 0),
      });
      return HttpResponse.json(
        quietAttention({
          missingReceipt: {
            ...tally(
              inPeriod.filter(
                (t) =>
                  (SPEND_STATUSES as readonly string[]).includes(t.status) &&
                  Math.abs(t.amountCents) >= receiptFromCents &&
                  !t.notes?.receipts,
              ),
            ),
            fromCents: receiptFromCents,
          },
          unreviewed: tally(moved.filter((t) => !t.notes?.reviewed)),
          uncategorized: tally(moved.filter((t) => !t.notes?.categoryId)),
          declined: {
            count: attempted.length,
            cents: attempted.reduce((n, t) => n + t.amountCents, 0),
          },
        } satisfies Partial<Attention>),
      );
    }),
  );
}

/** The BFF's merchant rules, and the chart they book to: one rule per merchant whatever its case (409 otherwise). */
export function serveRules(start: MerchantRule[] = []) {
  let items = [...start];
  server.use(
    serve('accountingCategories.list', () => HttpResponse.json({ items: accountingCategories })),
    serve('merchantRules.list', () => HttpResponse.json({ items })),
    serve('merchantRules.create', async ({ request }) => {
      const body = merchantRuleCreateSchema.parse(await request.json());
      if (items.some((r) => r.merchant.toLowerCase() === body.merchant.toLowerCase())) {
        return apiError(
          409,
          'merchant_rule_exists',
          'This merchant already has a rule. Remove it first to book the merchant elsewhere.',
        );
      }
      const rule = {
        id: `rule_${items.length + 1}`,
        ...body,
        createdBy: 'admin@example.test',
        createdAt: '2026-03-06T09:00:00.000Z',
      };
      items = [...items, rule];
      return HttpResponse.json(rule, { status: 201 });
    }),
    serve('merchantRules.remove', ({ params }) => {
      items = items.filter((r) => r.id !== params.id);
      return new HttpResponse(null, { status: 204 });
    }),
  );
}
