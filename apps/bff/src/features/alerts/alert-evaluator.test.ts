import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { containsCardNumber, isLuhnValid } from '../../platform/security/card-numbers';
import { testPan } from '../../test/test-pan';
import {
  type AlertToRaise,
  type CardState,
  evaluateAlerts,
  type SyncedRow,
  type SyncedSubAccount,
} from './alert-evaluator';
import type { AlertRule, AlertRuleKind } from './alert-rules';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`alert evaluator: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

const CREATED = '2026-11-01T00:00:00.000Z';
const NOW = Date.UTC(2026, 10, 27, 23, 59, 59, 999);

function ruleOf(
  kind: AlertRuleKind,
  over: Partial<Record<string, unknown>> = {},
  id = `rule-${kind}`,
): AlertRule {
  return {
    id,
    kind,
    ownerEmail: 'ana@example.test',
    name: `Rule ${kind}`,
    channels: { inbox: true, email: false, webhookTargetId: null },
    digest: false,
    enabled: true,
    createdBy: 'ana@example.test',
    createdAt: CREATED,
    updatedBy: 'ana@example.test',
    updatedAt: CREATED,
    version: 1,
    ...(kind === 'amount_above' || kind === 'balance_below' ? { amountCents: 10_000 } : {}),
    ...(kind === 'utilisation_above' ? { sharePercent: 80 } : {}),
    ...over,
  } as AlertRule;
}

const row = (over: Partial<SyncedRow> = {}): SyncedRow => ({
  id: 't1',
  at: '2026-11-27T10:00:00.000Z',
  description: 'Card purchase',
  amountCents: -10_000,
  status: 'settled',
  cardId: 'card-1',
  merchant: 'ACME',
  categoryCode: '5411',
  ...over,
});

const card = (over: Partial<CardState> = {}): CardState => ({
  knownCategories: new Set(),
  ...over,
});

const synced = (over: Partial<SyncedSubAccount> = {}): SyncedSubAccount => ({
  subAccountId: 'sa-1',
  rows: [],
  cards: new Map(),
  now: NOW,
  ...over,
});

const keys = (alerts: AlertToRaise[]) => alerts.map((a) => a.idempotencyKey);

describe('transaction rules', () => {
  it('a declined transaction raises one alert keyed by rule and transaction, with what a person is shown', () => {
    const alerts = evaluateAlerts(
      [ruleOf('declined')],
      synced({
        subAccountName: 'Marketing',
        rows: [
          row({ id: 't1', status: 'declined', declineReason: 'insufficient_funds' }),
          row({ id: 't2', status: 'settled' }),
        ],
        cards: new Map([['card-1', card({ name: 'Ana', lastFour: '4242' })]]),
      }),
    );
    expect(alerts).toEqual([
      {
        ruleId: 'rule-declined',
        idempotencyKey: 'rule-declined:t1',
        payload: {
          kind: 'declined',
          ruleName: 'Rule declined',
          subAccount: { id: 'sa-1', name: 'Marketing' },
          card: { id: 'card-1', name: 'Ana', lastFour: '4242' },
          transaction: {
            id: 't1',
            at: '2026-11-27T10:00:00.000Z',
            amountCents: -10_000,
            status: 'declined',
            description: 'Card purchase',
            merchant: 'ACME',
            categoryCode: '5411',
            declineReason: 'insufficient_funds',
          },
        },
      },
    ]);
  });

  it('above an amount: a charge exactly at the threshold alerts, a cent under does not, a credit never', () => {
    const rule = ruleOf('amount_above', { amountCents: 10_000 });
    const alerts = evaluateAlerts(
      [rule],
      synced({
        rows: [
          row({ id: 'at', amountCents: -10_000 }),
          row({ id: 'under', amountCents: -9_999 }),
          row({ id: 'credit', amountCents: 10_000, status: 'refund' }),
          row({ id: 'funding', amountCents: 5_000_000, status: 'settled' }),
          row({ id: 'pending', amountCents: -25_000, status: 'pending' }),
        ],
      }),
    );
    expect(keys(alerts)).toEqual(['rule-amount_above:at', 'rule-amount_above:pending']);
    expect(alerts[0]?.payload).toMatchObject({ thresholdCents: 10_000 });
  });

  it('above an amount: statuses that move no money never alert, however large', () => {
    const rule = ruleOf('amount_above', { amountCents: 1 });
    const quiet = ['declined', 'canceled', 'failed', 'reversed', 'returned'];
    const alerts = evaluateAlerts(
      [rule],
      synced({
        rows: quiet.map((status, i) => row({ id: `t${i}`, status, amountCents: -9_000_000 })),
      }),
    );
    expect(alerts).toEqual([]);
  });

  it('a new category: the first row of a category the card never had, once, earliest first', () => {
    const alerts = evaluateAlerts(
      [ruleOf('new_category')],
      synced({
        rows: [
          row({ id: 'later', categoryCode: '5812', at: '2026-11-27T12:00:00.000Z' }),
          row({ id: 'known', categoryCode: '5411' }),
          row({ id: 'first', categoryCode: '5812', at: '2026-11-27T09:00:00.000Z' }),
          row({ id: 'other-card', cardId: 'card-2', categoryCode: '5411' }),
          row({ id: 'no-card', cardId: undefined, categoryCode: '7399' }),
          row({ id: 'no-category', categoryCode: undefined }),
        ],
        cards: new Map([['card-1', card({ knownCategories: new Set(['5411']) })]]),
      }),
    );
    expect(keys(alerts)).toEqual(['rule-new_category:first', 'rule-new_category:other-card']);
  });

  it('a category first seen in a row older than the rule is known: a later row of it is not new', () => {
    const alerts = evaluateAlerts(
      [ruleOf('new_category')],
      synced({
        rows: [
          row({ id: 'old', categoryCode: '5812', at: '2026-10-15T00:00:00.000Z' }),
          row({ id: 'new', categoryCode: '5812' }),
        ],
      }),
    );
    expect(alerts).toEqual([]);
  });

  it('transactions before the rule was created raise nothing; one at its creation does', () => {
    const alerts = evaluateAlerts(
      [ruleOf('declined')],
      synced({
        rows: [
          row({ id: 'before', status: 'declined', at: '2026-10-31T23:59:59.999Z' }),
          row({ id: 'at', status: 'declined', at: CREATED }),
        ],
      }),
    );
    expect(keys(alerts)).toEqual(['rule-declined:at']);
  });

  it('a rule narrowed to a sub account or card ignores the others; a disabled rule raises nothing', () => {
    const rows = [
      row({ id: 'a', status: 'declined' }),
      row({ id: 'b', status: 'declined', cardId: 'card-2' }),
    ];
    expect(
      keys(evaluateAlerts([ruleOf('declined', { cardId: 'card-2' })], synced({ rows }))),
    ).toEqual(['rule-declined:b']);
    expect(
      evaluateAlerts([ruleOf('declined', { subAccountId: 'sa-2' })], synced({ rows })),
    ).toEqual([]);
    expect(evaluateAlerts([ruleOf('declined', { enabled: false })], synced({ rows }))).toEqual([]);
  });

  it('a transaction listed twice is judged as the last listing says', () => {
    const alerts = evaluateAlerts(
      [ruleOf('declined')],
      synced({ rows: [row({ status: 'pending' }), row({ status: 'declined' })] }),
    );
    expect(keys(alerts)).toEqual(['rule-declined:t1']);
  });
});

describe('utilisation and balance rules', () => {
  const window = { fromDay: '2026-11-27', toDay: '2026-11-27', timeZone: 'UTC' };

  it('utilisation: spend exactly at the share of the limit alerts, keyed by card and window; a cent under does not', () => {
    const alerts = evaluateAlerts(
      [ruleOf('utilisation_above', { sharePercent: 80 })],
      synced({
        cards: new Map([
          [
            'at',
            card({ lastFour: '1111', utilisation: { limitCents: 1_000, window, spentCents: 800 } }),
          ],
          ['under', card({ utilisation: { limitCents: 1_001, window, spentCents: 800 } })],
          ['no-limit', card({ utilisation: { limitCents: 0, window, spentCents: 800 } })],
          ['unknown', card()],
        ]),
      }),
    );
    expect(alerts).toEqual([
      {
        ruleId: 'rule-utilisation_above',
        idempotencyKey: 'rule-utilisation_above:at:2026-11-27',
        payload: {
          kind: 'utilisation_above',
          ruleName: 'Rule utilisation_above',
          subAccount: { id: 'sa-1' },
          card: { id: 'at', lastFour: '1111' },
          sharePercent: 80,
          limitCents: 1_000,
          spentCents: 800,
          window,
        },
      },
    ]);
  });

  it('utilisation: the share is integer maths where floating point falls a point short (57,000 of 100,000 is 57 %)', () => {
    const rule = ruleOf('utilisation_above', { sharePercent: 57 });
    const at = (spentCents: number, limitCents: number) =>
      evaluateAlerts(
        [rule],
        synced({
          cards: new Map([['c', card({ utilisation: { limitCents, window, spentCents } })]]),
        }),
      ).length;
    expect(at(57_000, 100_000)).toBe(1);
    expect(at(5_700_000, 10_000_000)).toBe(1);
    expect(at(56_999, 100_000)).toBe(0);
    expect(at(-57_000, 100_000)).toBe(0);
  });

  it('balance: strictly under the amount alerts once per UTC day; at the amount does not', () => {
    const rule = ruleOf('balance_below', { amountCents: 10_000 });
    expect(evaluateAlerts([rule], synced({ balanceCents: 10_000 }))).toEqual([]);
    expect(evaluateAlerts([rule], synced({}))).toEqual([]);
    const [alert] = evaluateAlerts([rule], synced({ balanceCents: 9_999, subAccountName: 'Ops' }));
    expect(alert).toEqual({
      ruleId: 'rule-balance_below',
      idempotencyKey: 'rule-balance_below:sa-1:2026-11-27',
      payload: {
        kind: 'balance_below',
        ruleName: 'Rule balance_below',
        subAccount: { id: 'sa-1', name: 'Ops' },
        thresholdCents: 10_000,
        balanceCents: 9_999,
        day: '2026-11-27',
      },
    });
    const nextDay = evaluateAlerts([rule], synced({ balanceCents: -5, now: NOW + 1 }));
    expect(keys(nextDay)).toEqual(['rule-balance_below:sa-1:2026-11-28']);
  });
});

// --- Against a brute force: each rule and row judged on its own, in other words ---

const MONEY = ['pending', 'settled', 'refund', 'dispute'];
const STATUSES = [...MONEY, 'declined', 'canceled', 'failed', 'reversed', 'returned'];

function bruteForce(rules: readonly AlertRule[], s: SyncedSubAccount): string[] {
  const last = new Map<string, SyncedRow>();
  for (const r of s.rows) last.set(r.id, r);
  const rows = [...last.values()];
  const out: string[] = [];
  for (const rule of rules) {
    if (
      !rule.enabled ||
      (rule.subAccountId !== undefined && rule.subAccountId !== s.subAccountId)
    ) {
      continue;
    }
    const cardOk = (cardId?: string) => rule.cardId === undefined || rule.cardId === cardId;
    if (rule.kind === 'balance_below') {
      if (s.balanceCents !== undefined && s.balanceCents < rule.amountCents) {
        out.push(`${rule.id}:${s.subAccountId}:${new Date(s.now).toISOString().slice(0, 10)}`);
      }
      continue;
    }
    if (rule.kind === 'utilisation_above') {
      for (const [cardId, c] of s.cards) {
        const u = c.utilisation;
        if (!u || u.limitCents <= 0 || !cardOk(cardId)) continue;
        if (u.spentCents >= Math.ceil((rule.sharePercent * u.limitCents) / 100)) {
          out.push(`${rule.id}:${cardId}:${u.window.fromDay}`);
        }
      }
      continue;
    }
    for (const r of rows) {
      if (r.at < rule.createdAt || !cardOk(r.cardId)) continue;
      const earlier = (o: SyncedRow) => o.at < r.at || (o.at === r.at && o.id < r.id);
      const hit =
        rule.kind === 'declined'
          ? r.status === 'declined'
          : rule.kind === 'amount_above'
            ? MONEY.includes(r.status) && -r.amountCents >= rule.amountCents
            : r.cardId !== undefined &&
              r.categoryCode !== undefined &&
              !s.cards.get(r.cardId)?.knownCategories.has(r.categoryCode) &&
              !rows.some(
                (o) => o.cardId === r.cardId && o.categoryCode === r.categoryCode && earlier(o),
              );
      if (hit) out.push(`${rule.id}:${r.id}`);
    }
  }
  return out;
}

const CARDS = ['c0', 'c1', 'c2'];
const THRESHOLDS = [1, 500, 1_000, 2_000];
const times = [
  '2026-10-31T23:59:59.999Z',
  CREATED,
  '2026-11-27T10:00:00.000Z',
  '2026-11-27T10:00:00.001Z',
];

const rowArb = fc.record(
  {
    id: fc.constantFrom('t0', 't1', 't2', 't3', 't4', 't5', 't6'),
    at: fc.constantFrom(...times),
    description: fc.constant('Purchase'),
    amountCents: fc.oneof(
      fc.integer({ min: -2_500, max: 2_500 }),
      fc.constantFrom(...THRESHOLDS, ...THRESHOLDS.map((t) => -t), 999, -1_999),
    ),
    status: fc.constantFrom(...STATUSES),
    cardId: fc.constantFrom(...CARDS),
    categoryCode: fc.constantFrom('5411', '5812', '7399'),
  },
  { requiredKeys: ['id', 'at', 'description', 'amountCents', 'status'] },
);

const ruleArb = fc
  .record({
    kind: fc.constantFrom<AlertRuleKind>(
      'declined',
      'amount_above',
      'utilisation_above',
      'balance_below',
      'new_category',
    ),
    n: fc.integer({ min: 0, max: 1_000 }),
    amountCents: fc.constantFrom(...THRESHOLDS),
    sharePercent: fc.integer({ min: 1, max: 100 }),
    createdAt: fc.constantFrom(...times),
    subAccountId: fc.option(fc.constantFrom('sa-1', 'sa-2'), { nil: undefined }),
    cardId: fc.option(fc.constantFrom(...CARDS), { nil: undefined }),
    enabled: fc.boolean(),
  })
  .map(({ kind, n, amountCents, sharePercent, createdAt, subAccountId, cardId, enabled }) =>
    ruleOf(
      kind,
      {
        createdAt,
        enabled,
        ...(kind === 'amount_above' || kind === 'balance_below' ? { amountCents } : {}),
        ...(kind === 'utilisation_above' ? { sharePercent } : {}),
        ...(subAccountId === undefined ? {} : { subAccountId }),
        ...(cardId === undefined || kind === 'balance_below' ? {} : { cardId }),
      },
      `r${n}`,
    ),
  );

const cardArb = fc.record(
  {
    knownCategories: fc.uniqueArray(fc.constantFrom('5411', '5812', '7399')).map((c) => new Set(c)),
    utilisation: fc.record({
      limitCents: fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.constantFrom(100, 1_000)),
      window: fc.constant({ fromDay: '2026-11-23', toDay: '2026-11-29', timeZone: 'UTC' }),
      spentCents: fc.integer({ min: 0, max: 3_000 }),
    }),
  },
  { requiredKeys: ['knownCategories'] },
);

const scenarioArb = fc.record(
  {
    rules: fc.uniqueArray(ruleArb, { selector: (r) => r.id, maxLength: 5 }),
    rows: fc.array(rowArb, { maxLength: 12 }),
    cards: fc.array(cardArb, { minLength: 3, maxLength: 3 }),
    balanceCents: fc.integer({ min: -100, max: 2_500 }),
  },
  { requiredKeys: ['rules', 'rows', 'cards'] },
);

describe('against a brute force', () => {
  it('raises exactly the alerts each rule and row call for, each key once', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const state = synced({
          rows: s.rows,
          cards: new Map(s.cards.map((c, i) => [CARDS[i] as string, c])),
          ...(s.balanceCents === undefined ? {} : { balanceCents: s.balanceCents }),
        });
        const got = keys(evaluateAlerts(s.rules, state));
        expect(new Set(got).size).toBe(got.length);
        expect([...got].sort()).toEqual(bruteForce(s.rules, state).sort());
      }),
      { seed, numRuns: 2_000 },
    );
  });
});

// --- No card number in a payload ---

/** A Luhn-valid card number of 16 digits from 15. */
function withCheckDigit(body: string): string {
  for (let d = 0; d <= 9; d++) if (isLuhnValid(`${body}${d}`)) return `${body}${d}`;
  throw new Error('unreachable');
}
const panArb = fc
  .tuple(
    fc
      .array(fc.integer({ min: 0, max: 9 }), { minLength: 15, maxLength: 15 })
      .map((d) => withCheckDigit(`4${d.join('').slice(1)}`)),
    fc.constantFrom('', ' ', '-', '.'),
  )
  .map(([pan, sep]) => (sep === '' ? pan : (pan.match(/\d{4}/g) as string[]).join(sep)));

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

/** Text around a card number: letters, so it neither lengthens its run of digits nor joins it. */
const words = fc.stringMatching(/^[A-Za-zÀ-ÿ]{0,8}$/);

describe('payloads', () => {
  it('never hold a card number, wherever in the free text it was', () => {
    fc.assert(
      fc.property(panArb, words, words, (pan, before, after) => {
        const text = `${before} ${pan} ${after}`;
        const rules = (
          [
            'declined',
            'amount_above',
            'new_category',
            'utilisation_above',
            'balance_below',
          ] as const
        ).map((kind) => ruleOf(kind, { name: text }));
        const alerts = evaluateAlerts(
          rules,
          synced({
            subAccountName: text,
            balanceCents: 0,
            rows: [
              row({ status: 'declined', merchant: text, description: text, declineReason: text }),
              row({
                id: 't2',
                amountCents: -50_000,
                merchant: text,
                description: text,
                categoryCode: '1234',
              }),
            ],
            cards: new Map([
              [
                'card-1',
                card({
                  name: text,
                  utilisation: {
                    limitCents: 100,
                    window: { fromDay: '2026-11-27', toDay: '2026-11-27', timeZone: 'UTC' },
                    spentCents: 100,
                  },
                }),
              ],
            ]),
          }),
        );
        expect(new Set(alerts.map((a) => a.payload.kind)).size).toBe(5);
        for (const alert of alerts) {
          for (const s of strings(alert.payload)) expect(containsCardNumber(s)).toBe(false);
          expect(JSON.stringify(alert.payload).replace(/\D/g, '')).not.toContain(
            pan.replace(/\D/g, ''),
          );
        }
      }),
      { seed, numRuns: 300 },
    );
  });

  it('show a card’s last four digits only when they are four digits', () => {
    const [alert] = evaluateAlerts(
      [ruleOf('declined')],
      synced({
        rows: [row({ status: 'declined' })],
        cards: new Map([['card-1', card({ lastFour: testPan(1_234_567) })]]),
      }),
    );
    expect(alert?.payload.card).toEqual({ id: 'card-1' });
  });
});
