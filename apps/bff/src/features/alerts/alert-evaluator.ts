// Which alerts the rows a sync just wrote for one sub account raise: pure functions of the rules,
// those rows and the little state they need (the cards' limits and window spend, the sub
// account's balance, the categories each card had before these rows). Nothing here reads the
// card service or the store; the caller (the sync, once wired) gathers that, and the store's
// `raise` keeps only the first raise of each idempotency key.
//
// Decisions (issue 32 leaves them open):
// - a transaction rule alerts on transactions at or after the rule's creation: a first sync of
//   two years of history, or a new rule, does not flood anyone with old declines;
// - "above an amount" is the size (either sign) at or over the threshold, among the rows that
//   moved money or will (posted or pending by the one definition, docs/money.md): never one
//   that was declined, canceled, failed, reversed or returned;
// - a category is new to a card when no row of the card had it before, in the index or earlier
//   in these rows (by time, then id): of several rows of one new category, the first alerts;
// - utilisation: the window's spend at or over share × limit, once per window;
// - balance: strictly under the amount, once per UTC day.
import { wholePercentOf } from '@card-console/shared/api/alerts';
import { moneyStateOf } from '@card-console/shared/money-definition';
import type { TransactionStatus } from '@card-console/shared/upstream/enums';
import { maskCardNumbers } from '../../platform/security/card-numbers';
import type { IndexedTransaction } from '../transaction-index';
import type { AlertRule, AlertRuleKind } from './alert-rules';

export type SyncedRow = Pick<
  IndexedTransaction,
  | 'id'
  | 'at'
  | 'description'
  | 'merchant'
  | 'categoryCode'
  | 'amountCents'
  | 'status'
  | 'declineReason'
  | 'cardId'
>;

export interface CardState {
  name?: string;
  lastFour?: string;
  /** The categories the card had a row with before these rows (from the index, before the write). */
  knownCategories: ReadonlySet<string>;
  /** Its utilisation limit and spend in the limit's current window, when both are known. */
  utilisation?: {
    limitCents: number;
    window: { fromDay: string; toDay: string; timeZone: string };
    spentCents: number;
  };
}

export interface SyncedSubAccount {
  subAccountId: string;
  subAccountName?: string;
  /** The rows the sync just wrote (a later row of the same id replaces an earlier one). */
  rows: readonly SyncedRow[];
  /** The cards to consider: those of the rows, and any other whose utilisation should be checked. */
  cards: ReadonlyMap<string, CardState>;
  /** The sub account's balance now, when known. */
  balanceCents?: number;
  now: number;
}

interface PayloadBase {
  /** The rule's name as its author typed it: shown only to whom the rule is (`rule-name-for.ts`). */
  ruleName: string;
  /**
   * Whom the rule is for, written by the store when it raises the alert: its owner's email, null
   * for a team rule. Absent in an alert raised before it was written (its rule, if still there,
   * says it when read: `withRuleOwner`).
   */
  ruleOwner?: string | null;
  subAccount: { id: string; name?: string };
  card?: { id: string; name?: string; lastFour?: string };
  /** A test sent from the rule (`alert-test.ts`): an example, about nothing that happened. */
  test?: true;
}

/** What a person is shown: display data only, every text masked; never a card number. */
export type AlertPayload = PayloadBase &
  (
    | {
        kind: 'declined' | 'amount_above' | 'new_category';
        transaction: {
          id: string;
          at: string;
          amountCents: number;
          status: string;
          description: string;
          merchant?: string;
          /**
           * The merchant's name, however the card network wrote it (`merchant-groups.ts`, an
           * admin's name first), when the sync could tell it.
           */
          merchantName?: string;
          categoryCode?: string;
          declineReason?: string;
        };
        thresholdCents?: number;
      }
    | {
        kind: 'utilisation_above';
        sharePercent: number;
        limitCents: number;
        spentCents: number;
        window: { fromDay: string; toDay: string; timeZone: string };
      }
    | { kind: 'balance_below'; thresholdCents: number; balanceCents: number; day: string }
  );

export interface AlertToRaise {
  ruleId: string;
  idempotencyKey: string;
  payload: AlertPayload;
}

/** Posted or pending by the definition; a status the contract does not name moves nothing. */
function movesMoney(status: string): boolean {
  const state = moneyStateOf[status as TransactionStatus] as string | undefined;
  return state === 'posted' || state === 'pending';
}

export const transactionAlertKey = (ruleId: string, transactionId: string) =>
  `${ruleId}:${transactionId}`;
export const utilisationAlertKey = (ruleId: string, cardId: string, windowStart: string) =>
  `${ruleId}:${cardId}:${windowStart}`;
export const balanceAlertKey = (ruleId: string, subAccountId: string, utcDay: string) =>
  `${ruleId}:${subAccountId}:${utcDay}`;

/** Every string in `value` with its card numbers masked (keys are ours, and left alone). */
export function maskedDeep<T>(value: T): T {
  if (typeof value === 'string') return maskCardNumbers(value) as T;
  if (Array.isArray(value)) return value.map(maskedDeep) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskedDeep(v)])) as T;
  }
  return value;
}

const inScope = (rule: AlertRule, subAccountId: string, cardId: string | undefined) =>
  (rule.subAccountId === undefined || rule.subAccountId === subAccountId) &&
  (rule.cardId === undefined || rule.cardId === cardId);

const byTimeThenId = (a: SyncedRow, b: SyncedRow) => {
  const at = Date.parse(a.at) - Date.parse(b.at);
  if (at !== 0) return at;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};

function cardOf(cardId: string | undefined, cards: SyncedSubAccount['cards']) {
  if (cardId === undefined) return undefined;
  const card = cards.get(cardId);
  return {
    id: cardId,
    ...(card?.name === undefined ? {} : { name: card.name }),
    ...(card?.lastFour !== undefined && /^\d{4}$/.test(card.lastFour)
      ? { lastFour: card.lastFour }
      : {}),
  };
}

function base(rule: AlertRule, synced: SyncedSubAccount, cardId?: string): PayloadBase {
  const card = cardOf(cardId, synced.cards);
  return {
    ruleName: rule.name,
    subAccount: {
      id: synced.subAccountId,
      ...(synced.subAccountName === undefined ? {} : { name: synced.subAccountName }),
    },
    ...(card ? { card } : {}),
  };
}

/** The rows that are new categories to their card: the first row of each (card, category). */
function newCategoryRows(rows: readonly SyncedRow[], cards: SyncedSubAccount['cards']) {
  const seen = new Map<string, Set<string>>();
  const fresh = new Set<string>();
  for (const row of [...rows].sort(byTimeThenId)) {
    if (row.cardId === undefined || row.categoryCode === undefined) continue;
    let known = seen.get(row.cardId);
    if (!known) {
      known = new Set(cards.get(row.cardId)?.knownCategories ?? []);
      seen.set(row.cardId, known);
    }
    if (known.has(row.categoryCode)) continue;
    known.add(row.categoryCode);
    fresh.add(row.id);
  }
  return fresh;
}

function transactionHits(rule: AlertRule, row: SyncedRow, fresh: ReadonlySet<string>): boolean {
  switch (rule.kind) {
    case 'declined':
      return row.status === 'declined';
    case 'amount_above':
      // "A charge is over an amount": money going out (a card charge, a payment without a card),
      // by its size; a refund or money coming in is no charge, however large.
      return movesMoney(row.status) && row.amountCents < 0 && -row.amountCents >= rule.amountCents;
    case 'new_category':
      return fresh.has(row.id);
    default:
      return false;
  }
}

function transactionAlerts(rule: AlertRule, synced: SyncedSubAccount, rows: readonly SyncedRow[]) {
  const since = Date.parse(rule.createdAt);
  const fresh =
    rule.kind === 'new_category' ? newCategoryRows(rows, synced.cards) : new Set<string>();
  const out: AlertToRaise[] = [];
  for (const row of rows) {
    if (Date.parse(row.at) < since || !inScope(rule, synced.subAccountId, row.cardId)) continue;
    if (!transactionHits(rule, row, fresh)) continue;
    const transaction = {
      id: row.id,
      at: new Date(Date.parse(row.at)).toISOString(),
      amountCents: row.amountCents,
      status: row.status,
      description: row.description,
      ...(row.merchant === undefined ? {} : { merchant: row.merchant }),
      ...(row.categoryCode === undefined ? {} : { categoryCode: row.categoryCode }),
      ...(row.declineReason === undefined ? {} : { declineReason: row.declineReason }),
    };
    out.push({
      ruleId: rule.id,
      idempotencyKey: transactionAlertKey(rule.id, row.id),
      payload: {
        ...base(rule, synced, row.cardId),
        kind: rule.kind as 'declined' | 'amount_above' | 'new_category',
        transaction,
        ...(rule.kind === 'amount_above' ? { thresholdCents: rule.amountCents } : {}),
      },
    });
  }
  return out;
}

function utilisationAlerts(rule: AlertRule, synced: SyncedSubAccount): AlertToRaise[] {
  if (rule.kind !== 'utilisation_above') return [];
  const out: AlertToRaise[] = [];
  for (const [cardId, card] of synced.cards) {
    const use = card.utilisation;
    if (!use || use.limitCents <= 0 || !inScope(rule, synced.subAccountId, cardId)) continue;
    // In integers (the bell shows the same figure): spend ≥ share% × limit.
    if (wholePercentOf(use.spentCents, use.limitCents) < rule.sharePercent) continue;
    out.push({
      ruleId: rule.id,
      idempotencyKey: utilisationAlertKey(rule.id, cardId, use.window.fromDay),
      payload: {
        ...base(rule, synced, cardId),
        kind: 'utilisation_above',
        sharePercent: rule.sharePercent,
        limitCents: use.limitCents,
        spentCents: use.spentCents,
        window: { ...use.window },
      },
    });
  }
  return out;
}

function balanceAlerts(rule: AlertRule, synced: SyncedSubAccount): AlertToRaise[] {
  if (rule.kind !== 'balance_below' || synced.balanceCents === undefined) return [];
  if (!inScope(rule, synced.subAccountId, undefined) || synced.balanceCents >= rule.amountCents) {
    return [];
  }
  const day = new Date(synced.now).toISOString().slice(0, 10);
  return [
    {
      ruleId: rule.id,
      idempotencyKey: balanceAlertKey(rule.id, synced.subAccountId, day),
      payload: {
        ...base(rule, synced),
        kind: 'balance_below',
        thresholdCents: rule.amountCents,
        balanceCents: synced.balanceCents,
        day,
      },
    },
  ];
}

const TRANSACTION_KINDS = new Set<AlertRuleKind>(['declined', 'amount_above', 'new_category']);

/** The alerts `synced` raises under `rules` (disabled rules raise none), payloads masked. */
export function evaluateAlerts(
  rules: readonly AlertRule[],
  synced: SyncedSubAccount,
): AlertToRaise[] {
  // The last row of an id wins, as the index keeps it.
  const rows = [...new Map(synced.rows.map((row) => [row.id, row] as const)).values()];
  const out: AlertToRaise[] = [];
  for (const rule of rules) {
    if (!rule.enabled) continue;
    if (TRANSACTION_KINDS.has(rule.kind)) out.push(...transactionAlerts(rule, synced, rows));
    else out.push(...utilisationAlerts(rule, synced), ...balanceAlerts(rule, synced));
  }
  return out.map((alert) => ({ ...alert, payload: maskedDeep(alert.payload) }));
}
