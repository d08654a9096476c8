// How many rules one owner keeps, and which rules are the same rule (migration `alert-limits`).
// Both are decided by the store, so two replicas (or two requests at once) cannot get past them:
// the count under a lock held per owner until the rule is written, "identical" by a unique index.
import { AppError } from '../../core/app-error';
import type { SqlQueryable } from '../../platform/sql/sql-engine';
import type { AlertRule, AlertRuleInput } from './alert-rules';

/** Rules a person keeps (and the team: its rules count as one owner's) unless configured. */
export const DEFAULT_RULES_PER_OWNER = 50;

/** The owner already keeps `limit` rules. */
export class TooManyAlertRulesError extends Error {
  override name = 'TooManyAlertRulesError';
  constructor(readonly limit: number) {
    super(`an owner keeps at most ${limit} alert rules`);
  }
}

/** The rule would be the same as `existing`: same owner, kind, amount or share, scope and target. */
export class IdenticalAlertRuleError extends Error {
  override name = 'IdenticalAlertRuleError';
  constructor(readonly existing: AlertRule | undefined) {
    super('an identical alert rule exists');
  }
}

/** The unique index that refuses an identical rule. */
const IDENTICAL_INDEX = 'alert_rule_identical';

/** Whether the engine refused a row as identical to another (the index, whichever engine). */
export function isIdenticalRule(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && e.constraint === IDENTICAL_INDEX;
}

/**
 * Holds `owner`'s rules (null: the team's) until `tx` ends, and refuses a new one when there
 * are `limit` already. A transaction-scoped advisory lock: a second creation for the same owner,
 * from any replica, waits here until the first one committed, then counts it.
 */
export async function holdRoomForRule(
  tx: SqlQueryable,
  owner: string | null,
  limit: number,
): Promise<void> {
  await tx.query(
    `SELECT pg_advisory_xact_lock(hashtext('card-console alert rules'), hashtext($1::text))`,
    [owner ?? ''],
  );
  const [row] = await tx.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM alert_rule WHERE owner_email IS NOT DISTINCT FROM $1::text',
    [owner],
  );
  if (Number(row?.n ?? 0) >= limit) throw new TooManyAlertRulesError(limit);
}

/** The columns that make a rule the one it is, as the index reads them. */
export const IDENTITY_MATCH = `COALESCE(owner_email, '') = COALESCE($1::text, '')
  AND kind = $2 AND COALESCE(amount_cents, 0) = COALESCE($3::bigint, 0)
  AND COALESCE(share_percent, 0) = COALESCE($4::int, 0)
  AND COALESCE(sub_account_id, '') = COALESCE($5::text, '')
  AND COALESCE(card_id, '') = COALESCE($6::text, '')
  AND COALESCE(webhook_target_id, '') = COALESCE($7::text, '')`;

/** `IDENTITY_MATCH`'s values for `rule` of `owner`. */
export function identityValues(owner: string | null, rule: AlertRuleInput): unknown[] {
  return [
    owner,
    rule.kind,
    'amountCents' in rule ? rule.amountCents : null,
    'sharePercent' in rule ? rule.sharePercent : null,
    rule.subAccountId ?? null,
    rule.cardId ?? null,
    rule.channels.webhookTargetId,
  ];
}

/** A limit's refusal as the API says it (409), or undefined for any other error. */
export function limitProblem(error: unknown, team: boolean): AppError | undefined {
  if (error instanceof TooManyAlertRulesError) {
    const who = team ? 'The team has' : 'You have';
    return new AppError(
      409,
      'too_many_alert_rules',
      `${who} ${error.limit} alert rules, the most kept. Remove one that is no longer needed before adding another.`,
    );
  }
  if (error instanceof IdenticalAlertRuleError) {
    const which = error.existing ? `“${error.existing.name}”` : 'another rule';
    return new AppError(
      409,
      'alert_rule_exists',
      `This rule is the same as ${which} (same kind, amount, scope and webhook): change that one instead.`,
    );
  }
  return undefined;
}
