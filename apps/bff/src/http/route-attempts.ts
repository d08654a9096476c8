import type { AuditAttempt } from '@card-console/shared/api/audit-enums';
import type { RouteKey } from './api-router';
import type { RouteRule } from './route-table';

/**
 * What a person was trying to do on each route whose refusal is recorded: a role without the
 * right (every route not open to all), or a mutation from another site. The audit screen
 * names the refusal by it ("Reveal card — denied"); a test holds this beside the route table.
 */
export const routeAttempts: Partial<Record<RouteKey, AuditAttempt>> = {
  'POST /api/session': 'session.signIn',
  'DELETE /api/session': 'session.signOut',
  'POST /api/session/step-up-options': 'session.stepUp',
  'POST /api/session/step-up': 'session.stepUp',
  'GET /api/sso/step-up': 'session.stepUp',
  'GET /api/second-factors': 'factors.view',
  'PATCH /api/second-factors/totp': 'factors.change',
  'POST /api/passkeys/registration-options': 'factors.change',
  'POST /api/passkeys': 'factors.change',
  'PATCH /api/passkeys/:id': 'factors.change',
  'DELETE /api/passkeys/:id': 'factors.change',
  'POST /api/sub-accounts': 'subAccount.create',
  'PATCH /api/cards/:id': 'card.update',
  'GET /api/cards/:id/limit-impact': 'card.limitImpact',
  'POST /api/cards/:id/reveal': 'card.reveal',
  'GET /api/audit': 'audit.view',
  'GET /api/audit/export.csv': 'audit.export',
};

/** The route's operation, for an `access.denied` record's `attempted`. */
export function attemptOf(rule: RouteRule | undefined): AuditAttempt | undefined {
  return rule ? routeAttempts[`${rule.method} ${rule.path}` as RouteKey] : undefined;
}
