import type { BulkNotesResult } from '@card-console/shared/api/notes';
import { MAX_TAGS } from '@card-console/shared/api/notes-rules';

type SkipReason = BulkNotesResult['skipped'][number]['reason'];

/** Why rows were left as they were, and what to do about it. */
const SKIPPED: Record<SkipReason, string> = {
  reviewed: 'reviewed — reopen them first',
  too_many_tags: `would have more than ${MAX_TAGS} tags`,
  not_found: 'no longer in the list — refresh it',
};

const count = (n: number) => n.toLocaleString('en-US');

/**
 * "12 changed, 2 skipped: reviewed — reopen them first." With skips of several reasons, each
 * is counted: "… 3 skipped: 2 reviewed — reopen them first; 1 would have more than 20 tags."
 */
export function bulkResultText(result: BulkNotesResult): string {
  const changed = `${count(result.changed.length)} changed`;
  if (result.skipped.length === 0) return `${changed}.`;
  const byReason = new Map<SkipReason, number>();
  for (const { reason } of result.skipped) byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  const reasons =
    byReason.size === 1
      ? SKIPPED[[...byReason.keys()][0] as SkipReason]
      : [...byReason].map(([reason, n]) => `${count(n)} ${SKIPPED[reason]}`).join('; ');
  return `${changed}, ${count(result.skipped.length)} skipped: ${reasons}.`;
}
