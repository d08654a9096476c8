import { oneOf } from '../../lib/search-params';

/** The groups of items the screen can show alone (inbox-words.ts says what each holds). */
export const inboxGroupKeys = ['needs-you', 'reading', 'attached'] as const;
export type InboxGroupKey = (typeof inboxGroupKeys)[number];

/** The receipt inbox's URL state: which group of items shows; none: all of them. */
export interface InboxSearch {
  show?: InboxGroupKey | undefined;
}

/** A bad value falls back to showing everything: a mangled link still opens. */
export function validateInboxSearch(search: Record<string, unknown>): InboxSearch {
  return { show: oneOf(inboxGroupKeys, search.show) };
}
