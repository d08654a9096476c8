import {
  type AuditAction,
  type AuditAttempt,
  type AuditOutcome,
  auditActions,
  auditAttempts,
  auditOutcomes,
} from '@card-console/shared/api/audit-enums';
import { isIsoDay } from '@card-console/shared/dates';
import { type Period, periods } from '../../lib/periods';
import { oneOf, pageCount, resourceId, text } from '../../lib/search-params';

/** The audit screen's URL state: days, not instants, so a link means the same days. */
export interface AuditSearch {
  /** The person who acted: an exact email, as the form puts it (trimmed, lower case). */
  actor?: string | undefined;
  action?: AuditAction | undefined;
  /** Refusals of one kind (with `action=access.denied`): "Reveal card — denied". */
  attempted?: AuditAttempt | undefined;
  outcome?: AuditOutcome | undefined;
  cardId?: string | undefined;
  /** A preset ("this-week"), kept by name so a link means the same period when opened later. */
  period?: Period | undefined;
  /** First day, YYYY-MM-DD, in the person's time zone (custom days; none with a period). */
  from?: string | undefined;
  /** Last day (inclusive), YYYY-MM-DD. */
  to?: string | undefined;
  /** Pages of records shown ("Load more" pressed pages − 1 times); 1 when absent. */
  pages?: number | undefined;
}

/** One address, nothing around it: what the form accepts and what the BFF can match. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

const day = (value: unknown) => {
  const d = text(value, 10);
  return d && isIsoDay(d) ? d : undefined;
};

/** A bad value falls back to no filter instead of failing: a mangled link still opens. */
export function validateAuditSearch(search: Record<string, unknown>): AuditSearch {
  const period = oneOf(periods, search.period);
  let from = period ? undefined : day(search.from);
  let to = period ? undefined : day(search.to);
  // Days in the wrong order select nothing the person meant: drop both.
  if (from && to && from > to) from = to = undefined;
  let action = oneOf(auditActions, search.action);
  // Only refusals have an attempt: with another action it would match nothing.
  const attempted =
    action === undefined || action === 'access.denied'
      ? oneOf(auditAttempts, search.attempted)
      : undefined;
  if (attempted) action = 'access.denied';
  return {
    actor: text(search.actor, 254, EMAIL_PATTERN),
    action,
    attempted,
    outcome: oneOf(auditOutcomes, search.outcome),
    cardId: resourceId(search.cardId),
    period,
    from,
    to,
    pages: pageCount(search.pages),
  };
}
