import type { Role } from '@card-console/shared/api/meta';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Who may call what. Deny by default: a request whose method + path matches no row is a 404
 * before anything else runs, and a row's `access` is checked before its handler.
 * The authorization test matrix is generated from this table, so a new route cannot skip it.
 */
export interface RouteRule {
  method: HttpMethod;
  /** Express 5 path pattern, under the app root. */
  path: string;
  /** 'public': anyone; 'signedIn': any signed-in person; otherwise the roles allowed. */
  access: 'public' | 'signedIn' | readonly Role[];
  /** A concrete example path for generated tests. */
  example: string;
  /** Does the handler change anything (Origin check, audit of denials)? */
  mutation: boolean;
}

const everyone = ['finance', 'admin'] as const;
const admins = ['admin'] as const;

export const routeTable: readonly RouteRule[] = [
  { method: 'GET', path: '/api/meta', access: 'public', example: '/api/meta', mutation: false },
  {
    method: 'POST',
    path: '/api/session',
    access: 'public',
    example: '/api/session',
    mutation: true,
  },
  {
    method: 'GET',
    path: '/api/session',
    access: 'signedIn',
    example: '/api/session',
    mutation: false,
  },
  {
    method: 'DELETE',
    path: '/api/session',
    access: 'signedIn',
    example: '/api/session',
    mutation: true,
  },
  {
    method: 'GET',
    path: '/api/sub-accounts',
    access: everyone,
    example: '/api/sub-accounts',
    mutation: false,
  },
  {
    method: 'POST',
    path: '/api/sub-accounts',
    access: admins,
    example: '/api/sub-accounts',
    mutation: true,
  },
  { method: 'GET', path: '/api/cards', access: everyone, example: '/api/cards', mutation: false },
  {
    method: 'GET',
    path: '/api/cards/:id',
    access: everyone,
    example: '/api/cards/{cardId}',
    mutation: false,
  },
  {
    method: 'PATCH',
    path: '/api/cards/:id',
    access: admins,
    example: '/api/cards/{cardId}',
    mutation: true,
  },
  {
    method: 'POST',
    path: '/api/cards/:id/reveal',
    access: admins,
    example: '/api/cards/{cardId}/reveal',
    mutation: true,
  },
  {
    method: 'GET',
    path: '/api/transactions/export.csv',
    access: everyone,
    example: '/api/transactions/export.csv?subAccountId={subAccountId}',
    mutation: false,
  },
  {
    method: 'GET',
    path: '/api/transactions/export-receipts/:requestId',
    access: everyone,
    example: '/api/transactions/export-receipts/{exportRequestId}',
    mutation: false,
  },
  {
    method: 'GET',
    path: '/api/transactions',
    access: everyone,
    example: '/api/transactions?subAccountId={subAccountId}',
    mutation: false,
  },
  {
    method: 'GET',
    path: '/api/transactions/:id',
    access: everyone,
    example: '/api/transactions/{transactionId}',
    mutation: false,
  },
  { method: 'GET', path: '/api/audit', access: admins, example: '/api/audit', mutation: false },
];
