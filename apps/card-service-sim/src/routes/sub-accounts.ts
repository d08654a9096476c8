import {
  upstreamSubAccountCreateBodySchema,
  upstreamSubAccountListQuerySchema,
} from '@card-console/shared/upstream/sub-account';
import { z } from 'zod';
import type { ListPage, SubAccount } from '../data/model';
import { badRequest } from '../http/http-error';
import { parseJsonBody, parseQuery } from '../http/read-request';
import type { RouteContext, RouteResult } from './context';

const position = z.number().int().nonnegative();

export function listSubAccounts(ctx: RouteContext): RouteResult {
  const q = parseQuery(ctx.query, upstreamSubAccountListQuerySchema);
  let after: number | undefined;
  if (q.cursor !== undefined) {
    const parsed = position.safeParse(ctx.cursors.decode(q.cursor, 'sub-account', {}));
    if (!parsed.success) throw badRequest('cursor is invalid');
    after = parsed.data;
  }
  const page = ctx.data.subAccounts.page(ctx.pageSize.subAccounts, after);
  const body: ListPage<SubAccount> = { items: page.items, metadata: { count: page.items.length } };
  if (page.lastPosition !== undefined) {
    body.metadata.nextCursor = ctx.cursors.encode('sub-account', {}, page.lastPosition);
  }
  return { status: 200, body };
}

export async function createSubAccount(ctx: RouteContext): Promise<RouteResult> {
  parseQuery(ctx.query, z.strictObject({}));
  const body = await parseJsonBody(ctx.req, upstreamSubAccountCreateBodySchema);
  const created = ctx.data.subAccounts.add(body.name);
  return { status: 201, body: { id: created.id, name: created.name } };
}
