import { holdsSecurityCode, looksLikeAnotherName } from '@card-console/shared/api/names';
import type { Notes, NotesChange } from '@card-console/shared/api/notes';
import { distinctTags, MAX_MEMO, MAX_TAGS } from '@card-console/shared/api/notes-rules';
import { MAX_TAG, TAG_UNSAFE, TAG_VISIBLE } from './tag-text';

export { MAX_TAG };

/** What the notes form edits. */
export interface NotesValues {
  memo: string;
  categoryId: string | null;
  tags: string[];
}

/** The fields of a change, without its version and review. */
export type NotesFields = Pick<NotesChange, 'memo' | 'categoryId' | 'tags'>;

export { MAX_MEMO };

export const valuesOf = (a: Notes): NotesValues => ({
  memo: a.memo,
  categoryId: a.categoryId,
  tags: a.tags,
});

// As `memoSchema`: a line break or tab may stand in a memo, no other control character.
const memoUnsafe = /(?![\n\r\t])[\p{Cc}\p{Cs}]|[\u202A-\u202E\u2066-\u2069]/u;

const count = (n: number) => n.toLocaleString('en-US');

/** Why the memo cannot be saved, in plain words; undefined when the BFF would take it. */
export function memoProblem(memo: string): string | undefined {
  const length = memo.trim().length;
  if (length > MAX_MEMO) {
    return `The memo is ${count(length)} characters long; shorten it to ${count(MAX_MEMO)} or fewer.`;
  }
  if (memoUnsafe.test(memo)) {
    return 'Remove the invisible control or text-direction characters from the memo (line breaks and tabs are fine).';
  }
  if (holdsSecurityCode(memo)) {
    return 'Take the card’s security code out of the memo: memos are kept and exported.';
  }
  return undefined;
}

/** Why `tag` cannot be added to `tags`, in plain words; undefined when it can. */
export function tagProblem(tag: string, tags: readonly string[]): string | undefined {
  const text = tag.trim();
  if (text.length > MAX_TAG) {
    return `A tag can be at most ${MAX_TAG} characters; “${text.slice(0, 12)}…” has ${text.length}.`;
  }
  if (TAG_UNSAFE.test(text)) {
    return 'Remove the invisible control or text-direction characters from the tag.';
  }
  if (looksLikeAnotherName(text)) {
    return 'Remove the invisible characters (such as zero-width spaces) from the tag; they make it look like another.';
  }
  if (!TAG_VISIBLE.test(text)) return 'A tag needs at least one visible letter, digit or sign.';
  if (sameTag(tags, text)) return `“${text}” is already a tag.`;
  if (tags.length >= MAX_TAGS) {
    return `A transaction can have at most ${MAX_TAGS} tags. Remove one to add another.`;
  }
  return undefined;
}

const tagKey = (tag: string) => tag.toLocaleLowerCase('en');
const sameTag = (tags: readonly string[], tag: string) =>
  tags.some((t) => tagKey(t) === tagKey(tag));

const sameTags = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((tag, i) => tag === b[i]);

/** What saving `values` over `from` sends: only the fields that differ, as the BFF keeps them. */
export function fieldsChanged(from: NotesValues, values: NotesValues): NotesFields {
  const fields: NotesFields = {};
  const memo = values.memo.trim();
  if (memo !== from.memo) fields.memo = memo;
  if (values.categoryId !== from.categoryId) fields.categoryId = values.categoryId;
  const tags = distinctTags(values.tags.map((t) => t.trim()));
  if (!sameTags(tags, from.tags)) fields.tags = tags;
  return fields;
}

export const isEmpty = (fields: NotesFields) => Object.keys(fields).length === 0;

/**
 * The person's change (from `seen` to `mine`) laid over the notes as they are now: a memo or a
 * category they changed replaces the current one; the tags they added are added to the current
 * tags and those they removed are removed from them; what they left alone stays as it is now.
 */
export function layOver(seen: NotesValues, current: NotesValues, mine: NotesValues): NotesValues {
  const changed = fieldsChanged(seen, mine);
  const { added, removed } = tagChanges(seen.tags, mine.tags);
  return {
    memo: changed.memo ?? current.memo,
    categoryId: changed.categoryId === undefined ? current.categoryId : changed.categoryId,
    tags:
      changed.tags === undefined
        ? current.tags
        : distinctTags([...current.tags.filter((t) => !sameTag(removed, t)), ...added]),
  };
}

/** The tags added and removed between two lists (case aside). */
export function tagChanges(from: readonly string[], to: readonly string[]) {
  return {
    added: to.filter((t) => !sameTag(from, t)),
    removed: from.filter((t) => !sameTag(to, t)),
  };
}

/** Tags typed into the tag field: each comma ends one. */
export const splitTags = (text: string) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/**
 * `texts` added to `tags` in order, up to the first that cannot be: that one and those after it
 * are handed back (`rest`) with the reason, so what was typed stays in the field.
 */
export function addTags(
  tags: readonly string[],
  texts: readonly string[],
): { tags: string[]; added: string[]; rest: string[]; error?: string } {
  const next = [...tags];
  for (const [i, text] of texts.entries()) {
    const error = tagProblem(text, next);
    if (error) return { tags: next, added: next.slice(tags.length), rest: texts.slice(i), error };
    next.push(text.trim());
  }
  return { tags: next, added: next.slice(tags.length), rest: [] };
}

/**
 * What applying a change again does to the review of the notes as they are now: a reviewed
 * transaction takes a change of its notes only with its reopening; a review or a reopening the
 * person asked for is asked for again when it still changes something.
 */
export function reviewOnApply(
  reviewedNow: boolean,
  changesNotes: boolean,
  asked: boolean | undefined,
): boolean | undefined {
  if (reviewedNow) return changesNotes || asked === false ? false : undefined;
  return asked === true ? true : undefined;
}
