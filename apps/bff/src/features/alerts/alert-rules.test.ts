import { describe, expect, it } from 'vitest';
import { testPan } from '../../test/test-pan';
import {
  type AlertActor,
  type AlertRuleInput,
  alertRuleInputSchema,
  mayChangeRule,
  maySaveRule,
  maySeeRule,
  ownerOf,
} from './alert-rules';

const ana: AlertActor = { email: 'Ana@Example.test', role: 'finance' };
const admin: AlertActor = { email: 'admin@example.test', role: 'admin' };
const channels = { inbox: true, email: false, webhookTargetId: null };

const messages = (input: unknown) => {
  const result = alertRuleInputSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('a rule as a person submits it', () => {
  it('takes each kind with what it needs, and fills the defaults', () => {
    expect(
      alertRuleInputSchema.parse({
        kind: 'declined',
        name: ' Declines ',
        channels: { inbox: true, email: false },
      }),
    ).toEqual({
      kind: 'declined',
      name: 'Declines',
      channels,
      digest: false,
      enabled: true,
      cardOwner: false,
      team: false,
    });
    for (const input of [
      { kind: 'amount_above', amountCents: 1 },
      { kind: 'utilisation_above', sharePercent: 1 },
      { kind: 'utilisation_above', sharePercent: 100 },
      { kind: 'balance_below', amountCents: 1_000_000_000_000, subAccountId: 'sa-1' },
      { kind: 'new_category', cardId: 'card-1' },
    ]) {
      expect(messages({ name: 'n', channels, ...input })).toEqual([]);
    }
  });

  it('says what is wrong with each part it refuses', () => {
    const base = { name: 'n', channels };
    expect(messages({ ...base, kind: 'weather' })).toEqual([
      'kind: kind must be one of declined, amount_above, utilisation_above, balance_below, new_category',
    ]);
    expect(messages({ ...base })).toEqual([
      'kind: kind must be one of declined, amount_above, utilisation_above, balance_below, new_category',
    ]);
    expect(messages({ ...base, kind: 'amount_above' })).toEqual([
      'amountCents: amountCents must be a number of cents',
    ]);
    expect(messages({ ...base, kind: 'amount_above', amountCents: 0 })).toEqual([
      'amountCents: amountCents must be more than 0 cents',
    ]);
    expect(messages({ ...base, kind: 'amount_above', amountCents: '100' })).toEqual([
      'amountCents: amountCents must be a number of cents',
    ]);
    expect(messages({ ...base, kind: 'balance_below', amountCents: 1e13 })).toEqual([
      'amountCents: amountCents must be at most 1000000000000 cents',
    ]);
    expect(messages({ ...base, kind: 'utilisation_above', sharePercent: 50.5 })).toEqual([
      'sharePercent: sharePercent must be a whole number from 1 to 100',
    ]);
    expect(messages({ ...base, kind: 'declined', name: '   ' })).toEqual([
      'name: name must not be empty',
    ]);
    expect(messages({ ...base, kind: 'declined', digest: true })).toEqual([
      'digest: a daily digest is sent by email: turn email on',
    ]);
    expect(messages({ ...base, kind: 'balance_below', amountCents: 5, cardId: 'c' })).toEqual([
      'cardId: a balance belongs to a sub account: a balance rule takes no card',
    ]);
    // To the card's owner: not on a balance, not as a digest, and by inbox or email.
    expect(messages({ ...base, kind: 'balance_below', amountCents: 5, cardOwner: true })).toEqual([
      "cardOwner: a balance has no card, so no card's owner: turn cardOwner off",
    ]);
    expect(
      messages({
        ...base,
        kind: 'declined',
        channels: { inbox: false, email: true },
        digest: true,
        cardOwner: true,
      }),
    ).toEqual([
      "cardOwner: a card's owner is sent each alert, not a digest: turn the digest or cardOwner off",
    ]);
    expect(
      messages({
        ...base,
        kind: 'declined',
        channels: { inbox: false, email: false, webhookTargetId: 'hook-1' },
        cardOwner: true,
      }),
    ).toEqual(["cardOwner: a card's owner is told by inbox or email: turn one of them on"]);
    expect(messages({ ...base, kind: 'amount_above', amountCents: 5, cardOwner: true })).toEqual(
      [],
    );
    expect(messages({ ...base, kind: 'declined', sharePercent: 5 })).toEqual([
      ': Unrecognized key: "sharePercent"',
    ]);
    expect(
      messages({
        ...base,
        kind: 'declined',
        cardId: (testPan(1_234_567).match(/\d{4}/g) ?? []).join(' '),
      }),
    ).toEqual(['cardId: cardId must not hold a card number']);
  });

  it('refuses a card number in every text a person types into a rule, each at its own path', () => {
    const pan = (testPan(7_654_321).match(/\d{4}/g) ?? []).join('-');
    const result = alertRuleInputSchema.safeParse({
      kind: 'declined',
      name: `Card ${pan}`,
      subAccountId: `sa ${pan}`,
      cardId: pan,
      channels: { inbox: true, email: false, webhookTargetId: `hook ${pan}` },
    });
    expect(result.success).toBe(false);
    expect(
      result.error?.issues.map((i) => ({ code: i.code, path: i.path, message: i.message })),
    ).toEqual([
      { code: 'custom', path: ['name'], message: 'name must not hold a card number' },
      {
        code: 'custom',
        path: ['subAccountId'],
        message: 'subAccountId must not hold a card number',
      },
      { code: 'custom', path: ['cardId'], message: 'cardId must not hold a card number' },
      {
        code: 'custom',
        path: ['channels', 'webhookTargetId'],
        message: 'channels.webhookTargetId must not hold a card number',
      },
    ]);
  });
});

describe('who may do what with a rule', () => {
  const input = (over: Partial<AlertRuleInput> = {}) =>
    ({
      kind: 'declined',
      name: 'n',
      channels,
      digest: false,
      enabled: true,
      team: false,
      ...over,
    }) as AlertRuleInput;
  const anasRule = { ownerEmail: 'ana@example.test', channels };
  const teamRule = { ownerEmail: null, channels };

  it('a person sees and changes their own rules, sees the team’s, and neither changes nor sees another’s', () => {
    expect(maySeeRule(ana, anasRule)).toBe(true);
    expect(maySeeRule(ana, teamRule)).toBe(true);
    expect(maySeeRule(ana, { ownerEmail: 'bo@example.test' })).toBe(false);
    expect(mayChangeRule(ana, anasRule)).toBeUndefined();
    expect(mayChangeRule(ana, teamRule)).toBe('not_yours');
    expect(mayChangeRule(admin, teamRule)).toBeUndefined();
    expect(mayChangeRule(admin, anasRule)).toBe('not_yours');
  });

  it('only admins set team rules or choose a webhook', () => {
    expect(maySaveRule(ana, input())).toBeUndefined();
    expect(maySaveRule(ana, input({ team: true }))).toBe('team_rules_are_for_admins');
    expect(maySaveRule(admin, input({ team: true }))).toBeUndefined();
    const hooked = input({ channels: { ...channels, webhookTargetId: 'hook-1' } });
    expect(maySaveRule(ana, hooked)).toBe('webhooks_are_for_admins');
    expect(maySaveRule(admin, hooked)).toBeUndefined();
    // A rule Ana hooked up while an admin, saved by her as finance with its webhook kept (a new
    // name, say), is refused: its text would reach the webhook's channel.
    expect(maySaveRule(ana, hooked, { ...anasRule, channels: hooked.channels })).toBe(
      'webhooks_are_for_admins',
    );
    expect(
      maySaveRule(admin, hooked, {
        ...anasRule,
        ownerEmail: admin.email,
        channels: hooked.channels,
      }),
    ).toBeUndefined();
    // Taking the webhook off it is hers to do; choosing another one is not.
    expect(maySaveRule(ana, input(), { ...anasRule, channels: hooked.channels })).toBeUndefined();
    const other = input({ channels: { ...channels, webhookTargetId: 'hook-2' } });
    expect(maySaveRule(ana, other, { ...anasRule, channels: hooked.channels })).toBe(
      'webhooks_are_for_admins',
    );
  });

  it('an admin changes a team rule as a team rule', () => {
    expect(maySaveRule(admin, input({ team: true }), teamRule)).toBeUndefined();
    expect(maySaveRule(admin, input({ team: false }), teamRule)).toBe('not_yours');
    expect(maySaveRule(ana, input({ team: true }), teamRule)).toBe('not_yours');
  });

  it('a rule keeps its owner: saving a person’s rule as the team’s is refused', () => {
    expect(
      maySaveRule(admin, input({ team: true }), { ownerEmail: 'admin@example.test', channels }),
    ).toBe('not_yours');
    expect(maySaveRule(ana, input(), teamRule)).toBe('not_yours');
    expect(ownerOf(ana, input())).toBe('ana@example.test');
    expect(ownerOf(admin, input({ team: true }))).toBeNull();
  });
});
