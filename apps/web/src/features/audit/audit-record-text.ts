import type { AuditRecord } from '@card-console/shared/api/audit';
import { formatCents } from '@card-console/shared/money';
import { ACTION_LABELS, DETAIL_LABELS, deniedLabel, METHOD_LABELS } from './audit-labels';

type Snapshot = NonNullable<AuditRecord['before']>;

/** The action column: what was done, or for a refusal what was refused. */
export function actionText(r: AuditRecord): string {
  if (r.action === 'access.denied' && r.attempted) return deniedLabel(r.attempted);
  return ACTION_LABELS[r.action] ?? r.action;
}

// A sub account's record names it in its detail, as the BFF writes it: `name "Travel"`, and
// after a failure `name "Travel": code`.
const SUB_ACCOUNT_DETAIL = /^name "(.*)"(?:: (.+))?$/s;

/** The sub account a record names, and what its detail says besides. */
export function subAccountOf(r: AuditRecord): { name?: string; rest?: string } {
  const m = r.action === 'subAccount.create' && r.detail ? SUB_ACCOUNT_DETAIL.exec(r.detail) : null;
  return m ? { name: m[1], rest: m[2] } : {};
}

const quoted = (value: string) => `“${value}”`;

/**
 * The transaction a record of one names (its notes, its receipts): the record's target, its sub
 * account only where it was read. Not a change of many (`selection`, `matching`).
 */
export function transactionOf(r: AuditRecord): string | undefined {
  if (!r.action.startsWith('transaction.') || r.action === 'transaction.bulkNotes')
    return undefined;
  return r.target && r.target !== r.subAccountId ? r.target : undefined;
}

/** A snapshot's field: its label, and its value in words ("none" when the record has none). */
function field<K extends keyof Snapshot>(
  key: K,
  label: string,
  show: (value: NonNullable<Snapshot[K]>) => string,
) {
  const text = (s: Snapshot | undefined) => {
    const value = s?.[key];
    return value === undefined ? 'none' : show(value);
  };
  return { key, label, text };
}

// A card's name and limits; a transaction's notes; an accounting category's code and state.
const FIELDS = [
  field('code', 'Code', quoted),
  field('name', 'Name', quoted),
  field('minimumCents', 'Minimum', formatCents),
  field('maximumCents', 'Maximum', formatCents),
  field('memo', 'Memo', (memo) => (memo === '' ? 'none' : quoted(memo))),
  field('category', 'Category', quoted),
  field('tags', 'Tags', (tags) => (tags.length === 0 ? 'none' : quoted(tags.join(', ')))),
  field('reviewed', 'Review', (reviewed) => (reviewed ? 'reviewed' : 'not reviewed')),
  field('archived', 'Status', (archived) => (archived ? 'archived' : 'active')),
  field('rule', 'Rule', quoted),
  field('receipt', 'Receipt', quoted),
  field('receiptFrom', 'Receipt from', (from) => from),
  field('memoCategories', 'Memo for', (names) =>
    names.length === 0 ? 'none' : quoted(names.join(', ')),
  ),
  field('secondFactorFor', 'Second factor required of', (who) => who),
  field('destination', 'Sends to', (origin) => origin),
];

function describeSnapshot(s: Snapshot | undefined): string {
  if (!s) return '—';
  const parts = FIELDS.filter((f) => s[f.key] !== undefined).map(
    (f) => `${f.label.toLowerCase()} ${f.text(s)}`,
  );
  return parts.length ? parts.join(', ') : '—';
}

/** What a change did: each field that moved, old → new; a one-sided record as it stands. */
export function changeText(before: Snapshot | undefined, after: Snapshot | undefined): string {
  if (!before && !after) return '';
  if (!before || !after) return `${describeSnapshot(before)} → ${describeSnapshot(after)}`;
  // Compared as shown: two lists of the same tags are the same.
  const moved = FIELDS.filter((f) => f.text(before) !== f.text(after));
  if (moved.length === 0) return 'No change';
  return moved.map((f) => `${f.label}: ${f.text(before)} → ${f.text(after)}`).join('; ');
}

/**
 * Whether the record's "after" is what was asked for rather than what happened: not saved, or
 * (`started`: a card service change recorded before it was sent) not known yet.
 */
export const isAttempt = (r: AuditRecord) => r.outcome !== 'success';

/**
 * A change that did not happen (refused or failed), or one started: only the values it asked
 * for, each from the card as the change found it. The record's "after" holds just those values.
 */
export function attemptText(
  before: Snapshot | undefined,
  after: Snapshot,
  verb: 'Tried' | 'Asked for' = 'Tried',
): string {
  const given = FIELDS.filter((f) => after[f.key] !== undefined);
  // A record holding a whole snapshot: the fields that would have moved, when any would.
  const moved = before ? given.filter((f) => f.text(before) !== f.text(after)) : given;
  const asked = moved.length ? moved : given;
  if (asked.length === 0) return '';
  const parts = asked.map((f) =>
    before ? `${f.label}: ${f.text(before)} → ${f.text(after)}` : `${f.label}: ${f.text(after)}`,
  );
  return `${verb} ${parts.join('; ')}`;
}

/** Every field either side of a record holds, in words, for the record's whole view. */
export function snapshotRows(
  before: Snapshot | undefined,
  after: Snapshot | undefined,
): { key: string; label: string; before: string | undefined; after: string | undefined }[] {
  return FIELDS.filter((f) => before?.[f.key] !== undefined || after?.[f.key] !== undefined).map(
    (f) => ({
      key: f.key,
      label: f.label,
      before: before ? f.text(before) : undefined,
      after: after && after[f.key] !== undefined ? f.text(after) : undefined,
    }),
  );
}

/**
 * The details column: how the person proved who they are, the change made, and why a refusal
 * or failure happened (the BFF's code in words). Never the person's own reason: that has its
 * column.
 */
export function detailText(r: AuditRecord): string {
  const parts: string[] = [];
  if (r.method) parts.push(METHOD_LABELS[r.method] ?? r.method);
  const change =
    isAttempt(r) && r.after
      ? attemptText(r.before, r.after, r.outcome === 'started' ? 'Asked for' : 'Tried')
      : changeText(r.before, r.after);
  if (change) parts.push(change);
  const sub = subAccountOf(r);
  const detail = sub.name !== undefined ? sub.rest : r.detail;
  if (detail) parts.push(DETAIL_LABELS[detail] ?? detail);
  else if (r.action === 'access.denied' && !r.detail) parts.push('Not allowed for this role');
  return parts.join(' · ');
}
