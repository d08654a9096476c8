import { instantToIsoDay, isIsoDay, localTimeZone } from '@card-console/shared/dates';
import type { InboxItem } from './api/get-inbox';
import type { InboxGroupKey } from './inbox-search';

export type InboxStatus = InboxItem['status'];
export type MatchReason = InboxItem['suggestions'][number]['reasons'][number];
type ReadProblem = NonNullable<NonNullable<InboxItem['read']>['problem']>;

/** The screen's groups of items, in the order they show; `show` in the URL picks one. */
export const inboxGroups = [
  { key: 'needs-you', label: 'Needs you', statuses: ['suggested', 'waiting'] },
  { key: 'reading', label: 'Reading', statuses: ['reading'] },
  { key: 'attached', label: 'Attached', statuses: ['attached'] },
] as const satisfies readonly {
  key: InboxGroupKey;
  label: string;
  statuses: readonly InboxStatus[];
}[];

/** The calendar day of a date or an instant, in the person's zone. */
function dayOf(value: string): string | undefined {
  if (isIsoDay(value)) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : instantToIsoDay(ms, localTimeZone());
}

/** Whole days between the receipt's date and the transaction's; undefined when either is unknown. */
export function daysApart(
  receiptDay: string | undefined,
  transactionAt: string,
): number | undefined {
  const a = receiptDay === undefined ? undefined : dayOf(receiptDay);
  const b = dayOf(transactionAt);
  if (a === undefined || b === undefined) return undefined;
  return Math.abs(Date.parse(`${a}T00:00:00Z`) - Date.parse(`${b}T00:00:00Z`)) / 86_400_000;
}

/** Why a transaction is suggested, as words: "same amount", "2 days apart". */
export function reasonWords(reason: MatchReason, apart?: number): string {
  switch (reason) {
    case 'amount':
      return 'same amount';
    case 'amount_with_tip':
      return 'amount with a tip';
    case 'date':
      return 'same day';
    case 'date_near':
      // 0: a day apart by the card's (UTC) date, the same day in the person's zone, as shown.
      if (apart === 0) return 'same day';
      return apart === undefined
        ? 'a few days apart'
        : `${apart} day${apart === 1 ? '' : 's'} apart`;
    case 'merchant':
      return 'merchant name';
    case 'no_receipt':
      return 'no receipt yet';
  }
}

/** Why nothing could be read off a receipt. */
export const problemWords: Record<ReadProblem, string> = {
  unreadable:
    'Nothing could be read from it: the file may be damaged, or a kind the reader does not take.',
  too_slow: 'Reading it took too long, so it was stopped.',
  too_large: 'It is too large to read.',
};

export const viaWords: Record<InboxItem['via'], string> = {
  upload: 'uploaded',
  email: 'by email',
};
