// The notes' limits and tag rule, free of any zod import so the SPA's screens can use them
// without downloading the schema library (as `audit-enums.ts` does for the audit screen).

/** At most this many tags on a transaction. */
export const MAX_TAGS = 20;

/** A memo's longest, in characters (after trimming). */
export const MAX_MEMO = 2000;

/** At most this many transactions in one bulk change of notes. */
export const BULK_NOTES_MAX = 500;

/** Tags as stored: each once whatever its case (the first spelling kept), in order. */
export function distinctTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const tag of tags) {
    const key = tag.toLocaleLowerCase('en');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  return out;
}
