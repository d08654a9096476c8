import { resourceIdSchema } from '@card-console/shared/upstream/common';
import { AppError } from '../http/app-error';

/**
 * The only upstream requests the BFF can make: a fixed allowlist of method + path template.
 * Nothing a browser sends can add a path, a method or a query parameter outside this table.
 */
export const upstreamOperations = {
  listSubAccounts: { method: 'GET', template: '/sub-account', query: ['cursor'] },
  createSubAccount: { method: 'POST', template: '/sub-account', query: [] },
  listCards: {
    method: 'GET',
    template: '/card',
    query: ['filter:status', 'sort', 'sortDirection', 'cursor'],
  },
  getCard: { method: 'GET', template: '/card/{id}', query: ['include_pan', 'include_cvv'] },
  updateCard: { method: 'PATCH', template: '/card/{id}', query: [] },
  listTransactions: {
    method: 'GET',
    template: '/transaction',
    query: ['subAccountId', 'from_date', 'to_date', 'status', 'card_id', 'cursor'],
  },
  getTransaction: { method: 'GET', template: '/transaction/{id}', query: [] },
} as const satisfies Record<
  string,
  { method: 'GET' | 'POST' | 'PATCH'; template: string; query: readonly string[] }
>;

export type OperationName = keyof typeof upstreamOperations;
export type QueryValues = Record<string, string | number | boolean | undefined>;

export interface BuiltRequest {
  method: 'GET' | 'POST' | 'PATCH';
  /** Path + query, relative to the base URL's path. */
  pathAndQuery: string;
  /** The template, for logs and metrics (never an id or a query value). */
  template: string;
}

/** Builds the path and query of an allowlisted operation, validating and encoding the id. */
export function buildRequest(
  name: OperationName,
  id?: string,
  query: QueryValues = {},
): BuiltRequest {
  const op = upstreamOperations[name];
  let path: string = op.template;
  if (path.includes('{id}')) {
    if (!resourceIdSchema.safeParse(id).success) {
      throw new AppError(400, 'invalid_path', 'the id is not valid');
    }
    path = path.replace('{id}', encodeURIComponent(id as string));
  }
  const allowed: readonly string[] = op.query;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (!allowed.includes(key))
      throw new Error(`query parameter ${key} is not allowed for ${name}`);
    params.set(key, String(value));
  }
  const search = params.toString();
  return {
    method: op.method,
    pathAndQuery: search ? `${path}?${search}` : path,
    template: `${op.method} ${op.template}`,
  };
}
