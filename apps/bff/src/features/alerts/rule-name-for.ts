// What an alert calls its rule, for whoever it reaches. A rule's name is text its author typed
// (any role may set a rule that also goes to a card's owner): carried in the company's own mail to
// someone else it is a message that person wrote in the company's voice ("Your card is frozen:
// verify it at …"). So the name is shown only to whom the rule is: its owner, or for a team rule
// (admins') the team, the people in People. Anyone else (a card's owner) is told instead, in words
// of the product's, who set the rule: decision 0126, "Who reads a rule's name".
import type { AlertPayload } from './alert-evaluator';

/** The rule's author and whom its alerts are for, as the payload says: null for a team rule. */
type Named = Pick<AlertPayload, 'ruleName' | 'ruleOwner'>;

/**
 * The rule's name as `recipient` is told it. `inTeam`: whether the recipient is one of the people
 * in People (a team rule's audience; every signed-in reader is).
 */
export function ruleNameFor(payload: Named, recipient: string, inTeam: boolean): string {
  const owner = payload.ruleOwner;
  if (typeof owner === 'string') {
    return owner.toLowerCase() === recipient.trim().toLowerCase()
      ? payload.ruleName
      : `An alert rule ${owner} set in Card Console`;
  }
  if (owner === null) return inTeam ? payload.ruleName : 'A team alert rule set in Card Console';
  // Raised before the owner was written, its rule since removed: whose it was is not known.
  return 'An alert rule set in Card Console';
}

/**
 * The payload with its rule's owner, when the payload was raised before the store wrote it and the
 * rule is still there (`ruleExists`, `ownerEmail` read with it): a rule keeps its owner.
 */
export function withRuleOwner<T extends Named>(
  payload: T,
  rule: { exists: boolean; ownerEmail: string | null },
): T {
  if ('ruleOwner' in payload || !rule.exists) return payload;
  return { ...payload, ruleOwner: rule.ownerEmail };
}
