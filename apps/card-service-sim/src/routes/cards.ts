import {
  upstreamCardListQuerySchema,
  upstreamCardPatchBodySchema,
  upstreamCardReadQuerySchema,
} from '@card-console/shared/upstream/card';
import { z } from 'zod';
import type { Card, ListPage } from '../data/model';
import { badRequest, notFound } from '../http/http-error';
import { parseJsonBody, parseQuery } from '../http/read-request';
import type { RouteContext, RouteResult } from './context';

const sortKey = z.tuple([z.string(), z.string()]);

export function listCards(ctx: RouteContext): RouteResult {
  const q = parseQuery(ctx.query, upstreamCardListQuerySchema);
  const sort = q.sort ?? 'createdAt';
  const direction = q.sortDirection ?? 'ASC';
  const filter = { status: q['filter:status'] ?? null, sort, direction };
  let after: [string, string] | undefined;
  if (q.cursor !== undefined) {
    const parsed = sortKey.safeParse(ctx.cursors.decode(q.cursor, 'card', filter));
    if (!parsed.success) throw badRequest('cursor is invalid or was issued for another filter');
    after = parsed.data;
  }
  const { items, more } = ctx.data.cards.page(
    { status: q['filter:status'], sort, direction, after },
    ctx.pageSize.cards,
  );
  const body: ListPage<Card> = { items, metadata: { count: items.length } };
  const last = items.at(-1);
  if (more && last) {
    body.metadata.nextCursor = ctx.cursors.encode('card', filter, [
      sort === 'name' ? last.name : last.createdAt,
      last.id,
    ]);
  }
  return { status: 200, body };
}

export function readCard(ctx: RouteContext): RouteResult {
  const q = parseQuery(ctx.query, upstreamCardReadQuerySchema);
  const card = ctx.data.cards.read(ctx.id, {
    pan: q.include_pan === true,
    cvv: q.include_cvv === true,
  });
  if (!card) throw notFound(`card ${ctx.id} not found`);
  return { status: 200, body: card };
}

export async function patchCard(ctx: RouteContext): Promise<RouteResult> {
  parseQuery(ctx.query, z.strictObject({}));
  if (!ctx.data.cards.get(ctx.id)) throw notFound(`card ${ctx.id} not found`);
  const body = await parseJsonBody(ctx.req, upstreamCardPatchBodySchema);
  // Stricter than the shared schema: a name is printable, well-formed text (it also keeps
  // a name-sorted cursor, which carries the name, well under 512 characters).
  if (body.name !== undefined && /[\p{Cc}\p{Cs}]/u.test(body.name)) {
    throw badRequest('name must not contain control characters or lone surrogates');
  }
  const limits = body.spendingConstraint?.spendingRule.transactionSizeLimit;
  const result = ctx.data.cards.patch(ctx.id, {
    name: body.name,
    minimumCents: limits?.minimum?.amountCents,
    maximumCents: limits?.maximum?.amountCents,
  });
  if (result === 'invalid_limits') {
    throw badRequest('transactionSizeLimit minimum must not exceed maximum');
  }
  if (!result) throw notFound(`card ${ctx.id} not found`);
  return { status: 200, body: result };
}
