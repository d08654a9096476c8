import { resourceIdSchema } from '@card-console/shared/upstream/common';
import { AppError } from '../core/app-error';

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

/**
 * A query string with every key and value percent-encoded as a URI component: a space is
 * `%20` and a `+` is `%2B`, so a server reading the query either way (as a form, where `+`
 * is a space, or as plain URI escapes) reads back the very cursor or id the BFF was given.
 */
function queryString(pairs: readonly (readonly [string, string])[]): string {
  try {
    return pairs
      .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
      .join('&');
  } catch {
    // A lone surrogate has no UTF-8 form. What the browser sends is checked before it gets
    // here (`cursorSchema`, `resourceIdSchema`): this is a cursor or an id the service sent.
    throw new AppError(
      502,
      'upstream_invalid_response',
      'The card service sent a cursor or an id that cannot be sent back to it.',
    );
  }
}

/**
 * Builds the path and query of an allowlisted operation. The id must be one the BFF can
 * address (`resourceIdSchema`: never `.` or `..`, which URL parsers remove from a path even
 * escaped) and is percent-encoded as one path segment, so a `/`, `?`, `#`, `%` or `..` in it
 * is part of the id and never a path, a query or a fragment of the request.
 */
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
    const segment = encodeURIComponent(id as string);
    path = path.replace('{id}', () => segment);
  }
  const allowed: readonly string[] = op.query;
  const pairs: [string, string][] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (!allowed.includes(key))
      throw new Error(`query parameter ${key} is not allowed for ${name}`);
    pairs.push([key, String(value)]);
  }
  const search = queryString(pairs);
  return {
    method: op.method,
    pathAndQuery: search ? `${path}?${search}` : path,
    template: `${op.method} ${op.template}`,
  };
}
