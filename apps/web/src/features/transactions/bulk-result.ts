import type { BulkNotesResult } from '@card-console/shared/api/notes';
import type { NotesMatchingResult } from '@card-console/shared/api/notes-matching';
import { MAX_MEMO, MAX_TAGS } from '@card-console/shared/api/notes-rules';

type SkipReason = BulkNotesResult['skipped'][number]['reason'];

/** Why rows were left as they were, and what to do about it. */
const SKIPPED: Record<SkipReason, string> = {
  reviewed: 'reviewed — reopen them first',
  not_reviewed: 'not reviewed — nothing to reopen',
  too_many_tags: `would have more than ${MAX_TAGS} tags`,
  memo_too_long: `the memo would be longer than ${MAX_MEMO.toLocaleString('en-US')} characters`,
  card_number: 'their memo and the text added would read as a card number — edit those memos alone',
  security_code:
    'their memo and the text added would read as a card’s security code — edit those memos alone',
  not_found: 'no longer in the list — refresh it',
  no_longer_matching: 'changed by someone else meanwhile and no longer match — refresh the list',
};

const count = (n: number) => n.toLocaleString('en-US');

/**
 * "12 changed, 2 skipped: reviewed — reopen them first." With skips of several reasons, each
 * is counted: "… 3 skipped: 2 reviewed — reopen them first; 1 would have more than 20 tags."
 */
export function bulkResultText(result: BulkNotesResult): string {
  const byReason = new Map<SkipReason, number>();
  for (const { reason } of result.skipped) byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  return countedText(result.changed.length, byReason);
}

/** The same of a change of every matching row, whose answer counts the skipped by reason. */
export function matchingResultText(result: NotesMatchingResult): string {
  return countedText(result.changed, new Map(result.skipped.map((s) => [s.reason, s.count])));
}

/** What a change of many skipped, in words, after how many it changed. */
export function skippedText(byReason: ReadonlyMap<SkipReason, number>): string {
  const skipped = [...byReason.values()].reduce((sum, n) => sum + n, 0);
  const reasons =
    byReason.size === 1
      ? SKIPPED[[...byReason.keys()][0] as SkipReason]
      : [...byReason].map(([reason, n]) => `${count(n)} ${SKIPPED[reason]}`).join('; ');
  return `${count(skipped)} skipped: ${reasons}.`;
}

function countedText(changed: number, byReason: ReadonlyMap<SkipReason, number>): string {
  const text = `${count(changed)} changed`;
  return byReason.size === 0 ? `${text}.` : `${text}, ${skippedText(byReason)}`;
}
