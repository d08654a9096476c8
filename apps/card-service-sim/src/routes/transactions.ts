import { resourceIdSchema } from '@card-console/shared/upstream/common';
import { upstreamTransactionListQuerySchema } from '@card-console/shared/upstream/transaction';
import { z } from 'zod';
import { statusCode } from '../data/generate-transactions';
import { badRequest, notFound } from '../http/http-error';
import { parseQuery } from '../http/read-request';
import type { RouteContext, RouteResult } from './context';

const noQuery = z.strictObject({});
const rowPosition = z.number().int().nonnegative();

export function listTransactions(ctx: RouteContext): RouteResult {
  const q = parseQuery(ctx.query, upstreamTransactionListQuerySchema);
  const { transactions, subAccounts, cards } = ctx.data;
  const subIndex = subAccounts.indexOf(q.subAccountId);
  if (subIndex === undefined) throw notFound(`sub account ${q.subAccountId} not found`);
  // A card that does not exist, or belongs to another sub account, matches nothing.
  const cardIndex = q.card_id === undefined ? undefined : (cards.indexOf(q.card_id) ?? -1);
  const filter = {
    subAccountId: q.subAccountId,
    from: q.from_date ?? null,
    to: q.to_date ?? null,
    status: q.status ?? null,
    card: q.card_id ?? null,
  };
  let afterRow: number | undefined;
  if (q.cursor !== undefined) {
    const parsed = rowPosition.safeParse(ctx.cursors.decode(q.cursor, 'transaction', filter));
    if (!parsed.success) throw badRequest('cursor is invalid or was issued for another filter');
    afterRow = parsed.data;
  }
  const page =
    cardIndex === -1
      ? { rows: [] as number[], lastRow: undefined }
      : transactions.page(
          {
            subIndex,
            fromMs: q.from_date,
            toMs: q.to_date,
            status: q.status === undefined ? undefined : statusCode[q.status],
            cardIndex,
          },
          ctx.pageSize.transactions,
          afterRow,
        );
  // Written as text: a page of transactions is the simulator's hot path (see TransactionStore.json).
  const items = page.rows.map((row) => transactions.json(row)).join(',');
  const nextCursor =
    page.lastRow === undefined
      ? ''
      : `,"nextCursor":${JSON.stringify(ctx.cursors.encode('transaction', filter, page.lastRow))}`;
  return {
    status: 200,
    json: `{"items":[${items}],"metadata":{"count":${page.rows.length}${nextCursor}}}`,
  };
}

export function readTransaction(ctx: RouteContext): RouteResult {
  parseQuery(ctx.query, noQuery);
  const row = resourceIdSchema.safeParse(ctx.id).success
    ? ctx.data.transactions.rowOf(ctx.id)
    : undefined;
  if (row === undefined) throw notFound(`transaction ${ctx.id} not found`);
  return { status: 200, json: ctx.data.transactions.json(row) };
}
