import { describe, expect, it } from 'vitest';
import { accountingCategoryCreateSchema } from './api/accounting-categories';
import { alertRuleUpdateSchema } from './api/alerts';
import { cardOwnershipChangeSchema } from './api/card-owners';
import { cardPatchBodySchema, revealBodySchema } from './api/cards';
import { closePolicyUpdateSchema } from './api/close-policy';
import { MAX_VERSION, nameProblem } from './api/names';
import { memoSchema, notesChangeSchema } from './api/notes';
import { passkeyNameSchema } from './api/security';
import { signInBodySchema } from './api/session';
import { subAccountCreateBodySchema } from './api/sub-accounts';
import { transactionListQuerySchema } from './api/transactions';
import { upstreamCardPatchBodySchema, upstreamCardSchema } from './upstream/card';
import { cursorSchema, displayNameSchema, resourceIdSchema } from './upstream/common';
import {
  upstreamTransactionListQuerySchema,
  upstreamTransactionSchema,
} from './upstream/transaction';

describe('upstream response schemas', () => {
  it('tolerate unknown extra fields (dropping them) and missing optional ones', () => {
    const card = upstreamCardSchema.parse({
      id: 'card_1',
      last4: '4242',
      name: 'Travel',
      status: 'active',
      brandNewField: { nested: true },
    });
    expect(card).toMatchObject({ id: 'card_1', name: 'Travel' });
    expect(card).not.toHaveProperty('brandNewField');
    expect(card.spendingConstraint).toBeUndefined();
  });

  it('refuse a transaction whose amount is not whole cents or whose status is unknown', () => {
    const base = {
      id: 'tx_1',
      date: '2026-01-01T00:00:00Z',
      description: 'Coffee',
      amountCents: -450,
      status: 'settled',
      referenceNumber: 'R1',
    };
    expect(upstreamTransactionSchema.safeParse(base).success).toBe(true);
    expect(upstreamTransactionSchema.safeParse({ ...base, amountCents: -4.5 }).success).toBe(false);
    expect(upstreamTransactionSchema.safeParse({ ...base, status: 'paid' }).success).toBe(false);
  });
});

describe('request schemas', () => {
  it('turn the inclusive date bounds into numbers and refuse from after to', () => {
    expect(
      transactionListQuerySchema.parse({ subAccountId: 'sa_1', from: '1000', to: '1000' }),
    ).toEqual({ subAccountId: 'sa_1', from: 1000, to: 1000 });
    expect(
      transactionListQuerySchema.safeParse({ subAccountId: 'sa_1', from: '2', to: '1' }).success,
    ).toBe(false);
    expect(
      upstreamTransactionListQuerySchema.safeParse({ subAccountId: 'sa_1', from_date: '-1' })
        .success,
    ).toBe(false);
  });

  it('refuse unknown query parameters and body fields', () => {
    expect(transactionListQuerySchema.safeParse({ subAccountId: 'sa_1', sort: 'x' }).success).toBe(
      false,
    );
    expect(cardPatchBodySchema.safeParse({ name: 'ok', pan: '1' }).success).toBe(false);
  });

  it('check limits: non-negative whole cents, minimum not above maximum, something to change', () => {
    expect(
      cardPatchBodySchema.safeParse({
        transactionSizeLimit: { minimumCents: 500, maximumCents: 100 },
      }).success,
    ).toBe(false);
    expect(
      cardPatchBodySchema.safeParse({ transactionSizeLimit: { maximumCents: -1 } }).success,
    ).toBe(false);
    expect(cardPatchBodySchema.safeParse({ transactionSizeLimit: {} }).success).toBe(false);
    expect(cardPatchBodySchema.safeParse({}).success).toBe(false);
    const expected = { minimumCents: null, maximumCents: 100 };
    expect(
      cardPatchBodySchema.parse({
        transactionSizeLimit: { minimumCents: 0, maximumCents: 0 },
        expected,
      }),
    ).toEqual({ transactionSizeLimit: { minimumCents: 0, maximumCents: 0 }, expected });
    expect(
      upstreamCardPatchBodySchema.safeParse({
        spendingConstraint: { spendingRule: { transactionSizeLimit: {} } },
      }).success,
    ).toBe(false);
  });

  it('require a change to state what it replaces, for each value it changes', () => {
    const missing = (body: unknown) =>
      cardPatchBodySchema.safeParse(body).error?.issues.map((i) => i.path.join('.'));
    expect(missing({ name: 'New' })).toEqual(['expected.name']);
    expect(missing({ name: 'New', expected: { minimumCents: 1 } })).toEqual(['expected.name']);
    expect(
      missing({ transactionSizeLimit: { minimumCents: 1, maximumCents: 5 }, expected: {} }),
    ).toEqual(['expected.minimumCents', 'expected.maximumCents']);
    expect(missing({ name: 'New', expected: { name: 'Old', colour: 'red' } })).toEqual([
      'expected',
    ]);
    expect(missing({ name: 'New', expected: { name: 'Old' } })).toBeUndefined();
    expect(
      missing({ transactionSizeLimit: { maximumCents: 5 }, expected: { maximumCents: null } }),
    ).toBeUndefined();
  });

  it('trim names and refuse empty ones or control characters', () => {
    expect(displayNameSchema.parse('  Travel  ')).toBe('Travel');
    expect(displayNameSchema.safeParse('   ').success).toBe(false);
    expect(displayNameSchema.safeParse('a\u0000b').success).toBe(false);
    expect(displayNameSchema.safeParse('x'.repeat(101)).success).toBe(false);
  });

  it('take any id or cursor the contract allows that a URL can carry and a person can copy', () => {
    for (const id of [
      'card_1-A',
      'a b',
      '../card',
      'a/b?c#d',
      '100%',
      '+/=',
      'carte n°1',
      '卡片',
      '😀',
      '…',
      '...',
    ]) {
      expect(resourceIdSchema.safeParse(id).success, id).toBe(true);
    }
    for (const cursor of ['eyJrIjoxfQ.abc-_~=', 'quaerat sit', 'a&b=c', 'ab+/cd==', '"{}"']) {
      expect(cursorSchema.safeParse(cursor).success, cursor).toBe(true);
    }
    expect(resourceIdSchema.safeParse('é'.repeat(256)).success).toBe(true);
    expect(cursorSchema.safeParse('x'.repeat(2048)).success).toBe(true);
  });

  it.each([
    ['empty', '', /empty/],
    ['a dot segment', '..', /"\."/],
    ['the other dot segment', '.', /"\."/],
    ['a NUL', 'a\u0000b', /control/],
    ['a line break', 'a\nb', /control/],
    ['a C1 control', 'a\u0085b', /control/],
    ['a lone surrogate', 'a\ud800b', /well-formed/],
    ['a lone low surrogate', '\udc00', /well-formed/],
    ['over 512 bytes of UTF-8', 'é'.repeat(257), /512 bytes/],
  ])('refuse an id that is %s, saying why', (_what, id, message) => {
    const result = resourceIdSchema.safeParse(id);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(message);
  });

  it('refuse an empty, over-long or ill-formed cursor; one only passed back may hold controls', () => {
    expect(cursorSchema.safeParse('').success).toBe(false);
    expect(cursorSchema.safeParse('é'.repeat(1025)).success).toBe(false);
    expect(cursorSchema.safeParse('a\ud800').success).toBe(false);
    expect(cursorSchema.safeParse('a\tb\u0000').success).toBe(true);
    expect(cursorSchema.safeParse('..').success).toBe(true);
  });

  it('refuse a version no change can have (past a 32-bit integer, where versions are kept)', () => {
    const rule = { kind: 'declined', name: 'Declines', channels: { inbox: true, email: false } };
    for (const [what, parse] of [
      ['rule', (version: number) => alertRuleUpdateSchema.safeParse({ ...rule, version })],
      [
        'policy',
        (version: number) =>
          closePolicyUpdateSchema.safeParse({
            receiptFromCents: null,
            memoCategoryIds: [],
            version,
          }),
      ],
      ['notes', (version: number) => notesChangeSchema.safeParse({ version, memo: 'Lunch' })],
    ] as const) {
      expect(parse(MAX_VERSION).success, what).toBe(true);
      expect(parse(MAX_VERSION + 1).success, what).toBe(false);
      expect(parse(9007199254740984).success, what).toBe(false);
    }
  });

  it('ask a reveal for a real reason and a six-digit code, and normalise sign-in emails', () => {
    expect(revealBodySchema.safeParse({ reason: 'ok' }).success).toBe(false);
    expect(revealBodySchema.safeParse({ reason: 'Customer call', totp: '12345' }).success).toBe(
      false,
    );
    // A security code written beside its name is refused: the reason is kept for good.
    for (const reason of [
      'customer read the number, cvv 123',
      'Caller confirmed CVC: 4567',
      'cardholder said 987 cvv',
      'security code 042 for the hotel',
      'cvv2=555',
    ]) {
      const result = revealBodySchema.safeParse({ reason });
      expect(result.success, reason).toBe(false);
      expect(result.error?.issues[0]?.message, reason).toMatch(/security code/);
    }
    // A memo likewise (kept, and written into every export).
    expect(memoSchema.safeParse('Booked by phone, cvv 123').error?.issues[0]?.message).toMatch(
      /security code/,
    );
    expect(memoSchema.parse('Ask for a new card: the cvv is worn')).toBe(
      'Ask for a new card: the cvv is worn',
    );
    // And every name a person gives, kept and shown to others: tags, owners, teams, card,
    // sub-account, category, rule and passkey names (the form says it in its words).
    const bodies = {
      tag: (name: string) => notesChangeSchema.safeParse({ version: 0, tags: [name] }),
      owner: (name: string) => cardOwnershipChangeSchema.safeParse({ owner: { name }, team: null }),
      team: (name: string) => cardOwnershipChangeSchema.safeParse({ owner: null, team: name }),
      card: (name: string) => cardPatchBodySchema.safeParse({ name, expected: { name: 'Travel' } }),
      subAccount: (name: string) => subAccountCreateBodySchema.safeParse({ name }),
      category: (name: string) => accountingCategoryCreateSchema.safeParse({ code: '6100', name }),
      passkey: (name: string) => passkeyNameSchema.safeParse(name),
    };
    for (const [what, parse] of Object.entries(bodies)) {
      const refused = parse('Maya cvv 321');
      expect(refused.success, what).toBe(false);
      expect(refused.error?.issues[0]?.message, what).toMatch(/security code/);
      expect(parse('Maya, cvv on file').success, what).toBe(true);
    }
    expect(nameProblem('CVC: 4567')).toMatch(/security code/);
    expect(nameProblem('Travel 2026')).toBeUndefined();
    // What only names it, or a number of another length, is a reason.
    for (const reason of [
      'customer cannot find the CVV on the back',
      'ticket 12345 about the cvv',
      'hotel booking for 3 nights, card 4242',
    ]) {
      expect(revealBodySchema.safeParse({ reason }).success, reason).toBe(true);
    }
    expect(signInBodySchema.parse({ email: ' Ada@Example.TEST ', password: 'x' }).email).toBe(
      'ada@example.test',
    );
  });
});

describe('passkey names', () => {
  const problems = (name: string) => {
    const result = passkeyNameSchema.safeParse(name);
    return result.success ? [] : result.error.issues.map((issue) => issue.message);
  };

  it('follow the rules of every name a person gives, with their own length and wording', () => {
    expect(passkeyNameSchema.parse('  Work laptop  ')).toBe('Work laptop');
    expect(problems('  ')).toEqual(['give the passkey a name']);
    expect(problems('x'.repeat(65))).toEqual(['at most 64 characters']);
    expect(problems('Key\r\nforged')).toEqual(['must not contain control characters']);
    expect(problems('Key\u0000')).toEqual(['must not contain control characters']);
    expect(problems('Key\u202Eyek')[0]).toMatch(/text-direction control/);
    expect(problems('\u200B\u2060')).toEqual(['must contain a visible character']);
  });
});
