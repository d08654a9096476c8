// What a test alert says: an example of what the rule sends, made from the rule alone (its kind,
// its amount or share, its sub account and card), about no real transaction, card or balance,
// so a person can see where the rule's alerts go, and how they read, before anything happens.
import type { AlertPayload } from './alert-evaluator';
import type { AlertRule } from './alert-rules';

/** The id a test alert's example transaction, sub account or card carries when the rule names none. */
export const EXAMPLE_ID = 'example';

/** An example's amount: $42.50, or a dollar past the rule's amount. */
const EXAMPLE_CENTS = 4_250;
/** The example card limit a utilisation test is measured against: $1,000. */
const EXAMPLE_LIMIT_CENTS = 100_000;

/** The idempotency key of a test alert: never one a real alert of the rule can have. */
export const testAlertKey = (ruleId: string, id: string) => `test:${ruleId}:${id}`;

/** The example `rule` would send at `at`. */
export function testAlertPayload(rule: AlertRule, at: Date): AlertPayload {
  const day = at.toISOString().slice(0, 10);
  const base = {
    ruleName: rule.name,
    subAccount:
      rule.subAccountId === undefined
        ? { id: EXAMPLE_ID, name: 'Example sub account' }
        : { id: rule.subAccountId },
    test: true as const,
  };
  const card =
    rule.kind === 'balance_below'
      ? undefined
      : rule.cardId === undefined
        ? { id: EXAMPLE_ID, name: 'Example card' }
        : { id: rule.cardId };
  switch (rule.kind) {
    case 'balance_below':
      return {
        ...base,
        kind: 'balance_below',
        thresholdCents: rule.amountCents,
        balanceCents: rule.amountCents - 100,
        day,
      };
    case 'utilisation_above':
      return {
        ...base,
        ...(card ? { card } : {}),
        kind: 'utilisation_above',
        sharePercent: rule.sharePercent,
        limitCents: EXAMPLE_LIMIT_CENTS,
        spentCents: Math.ceil((EXAMPLE_LIMIT_CENTS * rule.sharePercent) / 100),
        window: { fromDay: day, toDay: day, timeZone: 'UTC' },
      };
    default: {
      const amountCents = rule.kind === 'amount_above' ? rule.amountCents + 100 : EXAMPLE_CENTS;
      return {
        ...base,
        ...(card ? { card } : {}),
        kind: rule.kind,
        transaction: {
          id: EXAMPLE_ID,
          at: at.toISOString(),
          amountCents,
          status: rule.kind === 'declined' ? 'declined' : 'settled',
          description: 'Example merchant',
          merchant: 'Example merchant',
          ...(rule.kind === 'new_category' ? { categoryCode: '5999' } : {}),
          ...(rule.kind === 'declined' ? { declineReason: 'Insufficient funds' } : {}),
        },
        ...(rule.kind === 'amount_above' ? { thresholdCents: rule.amountCents } : {}),
      };
    }
  }
}
