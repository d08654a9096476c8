import { z } from 'zod';
import { bulkActionShape, bulkSkipReasons, somethingToChange } from './notes';
import { indexFilterSchema } from './transaction-index';

/** A change of every matching transaction reaches at most this many (narrow the filter). */
export const NOTES_MATCHING_MAX = 10_000;

/**
 * POST /api/transactions/notes/matching: one change to every transaction the list's filter gives
 * now (`filter`, as the list's address has it), however many pages it holds, up to
 * NOTES_MATCHING_MAX. With `preview`, nothing is changed: the answer says how many match, how
 * many would change and how many would be skipped and why, for the person to confirm (naming
 * the rows previewed by their digest: a set that changed meanwhile is refused). Reopening
 * goes on its own (a reopened transaction's notes are then changed one by one or by another
 * change). One audit record names the filter and the count, and each changed row has its own.
 */
export const notesMatchingChangeSchema = z
  .strictObject({
    filter: indexFilterSchema,
    ...bulkActionShape,
    preview: z.boolean().optional(),
    /**
     * The preview's `matchingDigest`: the change is made only if the filter still gives those
     * rows (else 409 `matching_changed` and nothing changes), so "Change N transactions"
     * changes the N the person was shown. Without it, the rows the filter gives when confirmed.
     */
    matchingDigest: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .optional(),
  })
  .refine(somethingToChange, { message: 'nothing to change' })
  .refine(
    (b) =>
      b.reviewed !== false ||
      (b.categoryId === undefined && b.addTags === undefined && b.memo === undefined),
    { message: 'reopen on its own, then change the notes', path: ['reviewed'] },
  );
export type NotesMatchingChange = z.input<typeof notesMatchingChangeSchema>;

export const notesMatchingResultSchema = z.object({
  /** Nothing was changed: what confirming would do, as the rows are now. */
  preview: z.boolean(),
  /** Rows the filter gave. */
  matching: z.number().int().nonnegative(),
  /** Which rows those were, as a token for the confirmation to name (`matchingDigest`). */
  matchingDigest: z.string(),
  changed: z.number().int().nonnegative(),
  /** Left as they were, how many for each reason. */
  skipped: z.array(
    z.object({ reason: z.enum(bulkSkipReasons), count: z.number().int().positive() }),
  ),
});
export type NotesMatchingResult = z.infer<typeof notesMatchingResultSchema>;
