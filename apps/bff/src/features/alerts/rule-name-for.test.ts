// Who reads a rule's name: its owner, and a team rule's team; anyone else is told who set it.
import { describe, expect, it } from 'vitest';
import { ruleNameFor, withRuleOwner } from './rule-name-for';

const typed = 'Your card is frozen: call 555-0100';

describe('the rule name an alert shows its reader', () => {
  it("is the rule's name for its owner, in any case, and who set it for anyone else", () => {
    const payload = { ruleName: typed, ruleOwner: 'ana@example.test' };
    expect(ruleNameFor(payload, ' ANA@example.test', false)).toBe(typed);
    expect(ruleNameFor(payload, 'holder@example.test', false)).toBe(
      'An alert rule ana@example.test set in Card Console',
    );
    // A person in People who is not the owner (a card's owner who signs in) is not shown it.
    expect(ruleNameFor(payload, 'bo@example.test', true)).toBe(
      'An alert rule ana@example.test set in Card Console',
    );
  });

  it("is a team rule's name for the team only", () => {
    const payload = { ruleName: 'Team declines', ruleOwner: null };
    expect(ruleNameFor(payload, 'bo@example.test', true)).toBe('Team declines');
    expect(ruleNameFor(payload, 'holder@example.test', false)).toBe(
      'A team alert rule set in Card Console',
    );
  });

  it('is nobody’s when whose the rule was is not known', () => {
    const payload = { ruleName: typed };
    expect(ruleNameFor(payload, 'ana@example.test', true)).toBe(
      'An alert rule set in Card Console',
    );
    // Read with its rule: the rule's owner, a team rule's null, and a payload's own kept.
    expect(withRuleOwner(payload, { exists: true, ownerEmail: 'ana@example.test' })).toEqual({
      ruleName: typed,
      ruleOwner: 'ana@example.test',
    });
    expect(withRuleOwner(payload, { exists: true, ownerEmail: null })).toEqual({
      ruleName: typed,
      ruleOwner: null,
    });
    expect(withRuleOwner(payload, { exists: false, ownerEmail: null })).toEqual(payload);
    const kept = { ruleName: typed, ruleOwner: 'ana@example.test' };
    expect(withRuleOwner(kept, { exists: true, ownerEmail: 'bo@example.test' })).toBe(kept);
  });
});
