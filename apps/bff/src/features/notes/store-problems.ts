import { AppError } from '../../core/app-error';
import type { SqlQueryable } from '../../platform/sql/sql-engine';
import {
  CategoryCodeTakenError,
  CategoryNotFoundError,
  CategoryUnusableError,
  categoryIn,
  MerchantRuleExistsError,
  NotesConflictError,
  type NotesStore,
} from './notes-store';

/** Where a change's audit record reads categories: the change's own transaction, or the store. */
export type Categories = Pick<NotesStore, 'category'>;
export const categoriesIn = (tx: SqlQueryable): Categories => ({
  category: (id) => categoryIn(tx, id),
});

/** How an audit record shows a category: `6100 Software`, or its id if it is gone. */
export async function categoryText(s: Categories, id: string | null): Promise<string | undefined> {
  if (id === null) return undefined;
  const category = await s.category(id);
  return category ? `${category.code} ${category.name}` : id;
}

/** The store's refusals as the API's problems; anything else as it is. */
export function storeProblem(error: unknown): unknown {
  if (error instanceof NotesConflictError) {
    return error.reason === 'changed'
      ? new AppError(
          409,
          'notes_changed',
          "Someone else changed this transaction's notes after you loaded them, so nothing was saved. Check their current values and apply your change again.",
          { extensions: { current: error.current } },
        )
      : new AppError(
          409,
          'transaction_reviewed',
          'This transaction has been reviewed, so its notes are locked. Reopen it to change them.',
          { extensions: { current: error.current } },
        );
  }
  if (error instanceof CategoryUnusableError) {
    return error.reason === 'archived'
      ? new AppError(
          409,
          'category_archived',
          'That accounting category has been archived. Choose another one.',
        )
      : new AppError(400, 'invalid_body', 'There is no such accounting category.');
  }
  if (error instanceof CategoryCodeTakenError) {
    return new AppError(
      409,
      'category_code_taken',
      error.code
        ? `Another accounting category already has the code “${error.code}”. Use a different code.`
        : 'Another accounting category already has this code. Use a different code.',
    );
  }
  if (error instanceof MerchantRuleExistsError) {
    return new AppError(
      409,
      'merchant_rule_exists',
      'This merchant already has a rule. Remove it first to book the merchant elsewhere.',
    );
  }
  if (error instanceof CategoryNotFoundError) {
    return new AppError(404, 'not_found', 'There is no such accounting category.');
  }
  return error;
}
