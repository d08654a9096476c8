// The limits' pieces on their own: what the store asks the engine (the lock before the count),
// which engine errors are an identical rule, and what a person reads of each refusal. The
// engines' own behaviour under races is alert-limits.contract.ts's.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../core/app-error';
import {
  DEFAULT_RULES_PER_OWNER,
  holdRoomForRule,
  IdenticalAlertRuleError,
  identityValues,
  isIdenticalRule,
  limitProblem,
  TooManyAlertRulesError,
} from './alert-rule-limits';
import type { AlertRule } from './alert-rules';

/** An engine that answers the count with `n` and notes every statement. */
function countingTx(n: number | undefined) {
  const asked: { text: string; params: readonly unknown[] | undefined }[] = [];
  return {
    asked,
    async query<R extends object>(text: string, params?: readonly unknown[]): Promise<R[]> {
      asked.push({ text, params });
      if (text.includes('count(*)')) return (n === undefined ? [] : [{ n }]) as R[];
      return [] as R[];
    },
  };
}

const rule = { name: 'Large' } as AlertRule;

describe('room for one more rule', () => {
  it('takes the owner’s lock, then counts the owner’s rules, and lets a rule in under the limit', async () => {
    const tx = countingTx(2);
    await holdRoomForRule(tx, 'ana@example.test', 3);
    expect(tx.asked).toEqual([
      {
        text: expect.stringMatching(
          /^SELECT pg_advisory_xact_lock\(hashtext\('card-console alert rules'\), hashtext\(\$1::text\)\)$/,
        ),
        params: ['ana@example.test'],
      },
      {
        text: 'SELECT count(*)::int AS n FROM alert_rule WHERE owner_email IS NOT DISTINCT FROM $1::text',
        params: ['ana@example.test'],
      },
    ]);
  });

  it('refuses at the limit and past it, saying the limit', async () => {
    for (const n of [3, 4]) {
      const refused = await holdRoomForRule(countingTx(n), 'ana@example.test', 3).catch((e) => e);
      expect(refused).toBeInstanceOf(TooManyAlertRulesError);
      expect(refused).toMatchObject({ limit: 3, name: 'TooManyAlertRulesError' });
      expect((refused as Error).message).toBe('an owner keeps at most 3 alert rules');
    }
  });

  it('holds the team’s rules under one lock of their own, and counts rules of no owner', async () => {
    const tx = countingTx(0);
    await holdRoomForRule(tx, null, 1);
    expect(tx.asked.map((q) => q.params)).toEqual([[''], [null]]);
    // No answer to the count counts as none.
    await expect(holdRoomForRule(countingTx(undefined), null, 1)).resolves.toBeUndefined();
  });

  it('keeps 50 rules per owner unless configured', () => {
    expect(DEFAULT_RULES_PER_OWNER).toBe(50);
  });
});

describe('an identical rule', () => {
  it('is the engine refusing the identical-rule index, and nothing else', () => {
    expect(isIdenticalRule({ code: '23505', constraint: 'alert_rule_identical' })).toBe(true);
    for (const other of [
      { code: '23505', constraint: 'alert_rule_pkey' },
      { code: '23503', constraint: 'alert_rule_identical' },
      { code: '23505' },
      new Error('alert_rule_identical'),
      null,
      undefined,
      '23505',
    ]) {
      expect(isIdenticalRule(other)).toBe(false);
    }
  });

  it('is told by what makes a rule the one it is, each kind with its own amount or share', () => {
    const channels = { inbox: true, email: false, webhookTargetId: null };
    const common = {
      name: 'n',
      channels,
      digest: false,
      enabled: true,
      cardOwner: false,
      team: false,
    };
    expect(
      identityValues('ana@example.test', {
        ...common,
        kind: 'amount_above',
        amountCents: 500,
        subAccountId: 'sa-1',
        cardId: 'c-1',
        channels: { ...channels, webhookTargetId: 'hook-1' },
      }),
    ).toEqual(['ana@example.test', 'amount_above', 500, null, 'sa-1', 'c-1', 'hook-1']);
    expect(
      identityValues(null, { ...common, kind: 'utilisation_above', sharePercent: 80 }),
    ).toEqual([null, 'utilisation_above', null, 80, null, null, null]);
    expect(identityValues(null, { ...common, kind: 'declined' })).toEqual([
      null,
      'declined',
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});

describe('what a person reads of a refusal', () => {
  it('past the cap: 409 too_many_alert_rules, saying whose rules and how many', () => {
    const own = limitProblem(new TooManyAlertRulesError(50), false);
    expect(own).toBeInstanceOf(AppError);
    expect(own).toMatchObject({ status: 409, code: 'too_many_alert_rules' });
    expect(own?.message).toBe(
      'You have 50 alert rules, the most kept. Remove one that is no longer needed before adding another.',
    );
    expect(limitProblem(new TooManyAlertRulesError(7), true)?.message).toBe(
      'The team has 7 alert rules, the most kept. Remove one that is no longer needed before adding another.',
    );
  });

  it('identical: 409 alert_rule_exists naming the rule (or another, when it is gone meanwhile)', () => {
    const named = limitProblem(new IdenticalAlertRuleError(rule), false);
    expect(named).toMatchObject({ status: 409, code: 'alert_rule_exists' });
    expect(named?.message).toBe(
      'This rule is the same as “Large” (same kind, amount, scope and webhook): change that one instead.',
    );
    expect(limitProblem(new IdenticalAlertRuleError(undefined), true)?.message).toBe(
      'This rule is the same as another rule (same kind, amount, scope and webhook): change that one instead.',
    );
    expect(new IdenticalAlertRuleError(rule)).toMatchObject({
      name: 'IdenticalAlertRuleError',
      message: 'an identical alert rule exists',
      existing: rule,
    });
  });

  it('anything else: not a limit', () => {
    expect(limitProblem(new Error('boom'), false)).toBeUndefined();
    expect(limitProblem(undefined, true)).toBeUndefined();
  });
});
