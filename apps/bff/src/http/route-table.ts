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
  /**
   * A full-page navigation (single sign-on): a GET a browser makes by following a link or a
   * redirect, so it cannot carry `X-CSRF`. It answers with redirects only; what protects it
   * is the state bound to the browser (features/sso).
   */
  navigation?: true;
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
    method: 'POST',
    path: '/api/session/step-up-options',
    access: admins,
    example: '/api/session/step-up-options',
    mutation: true,
  },
  {
    method: 'POST',
    path: '/api/session/step-up',
    access: admins,
    example: '/api/session/step-up',
    mutation: true,
  },
  {
    method: 'GET',
    path: '/api/sso/start',
    access: 'public',
    example: '/api/sso/start',
    mutation: false,
    navigation: true,
  },
  {
    method: 'GET',
    path: '/api/sso/callback',
    access: 'public',
    example: '/api/sso/callback?state=s&code=c',
    mutation: false,
    navigation: true,
  },
  {
    method: 'GET',
    path: '/api/sso/step-up',
    access: admins,
    example: '/api/sso/step-up',
    mutation: false,
    navigation: true,
  },
  {
    method: 'GET',
    path: '/api/second-factors',
    access: admins,
    example: '/api/second-factors',
    mutation: false,
  },
  {
    method: 'PATCH',
    path: '/api/second-factors/totp',
    access: admins,
    example: '/api/second-factors/totp',
    mutation: true,
  },
  {
    method: 'POST',
    path: '/api/passkeys/registration-options',
    access: admins,
    example: '/api/passkeys/registration-options',
    mutation: true,
  },
  {
    method: 'POST',
    path: '/api/passkeys',
    access: admins,
    example: '/api/passkeys',
    mutation: true,
  },
  {
    method: 'PATCH',
    path: '/api/passkeys/:id',
    access: admins,
    example: '/api/passkeys/{passkeyId}',
    mutation: true,
  },
  {
    method: 'DELETE',
    path: '/api/passkeys/:id',
    access: admins,
    example: '/api/passkeys/{passkeyId}',
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
    method: 'GET',
    path: '/api/cards/:id/limit-impact',
    access: admins,
    example: '/api/cards/{cardId}/limit-impact?maximumCents=10000',
    mutation: false,
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
  {
    method: 'GET',
    path: '/api/insights/overview',
    access: everyone,
    example: '/api/insights/overview?from=2026-01-01&to=2026-01-31&tz=UTC',
    mutation: false,
  },
  { method: 'GET', path: '/api/audit', access: admins, example: '/api/audit', mutation: false },
  {
    method: 'GET',
    path: '/api/audit/export.csv',
    access: admins,
    example: '/api/audit/export.csv?tz=Europe/Paris',
    mutation: false,
  },
];
