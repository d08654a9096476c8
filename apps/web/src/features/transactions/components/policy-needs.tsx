import type { Transaction } from '@card-console/shared/api/transactions';
import { formatCents } from '@card-console/shared/money';
import { statusesOf } from '@card-console/shared/money-definition';
import { useQuery } from '@tanstack/react-query';
import { accountingCategoriesQueryOptions } from '../../accounting-categories/api/get-accounting-categories';
import { closePolicyQueryOptions } from '../../accounting-categories/api/get-close-policy';
import { notesQueryOptions } from '../api/get-notes';
import { receiptsQueryOptions } from '../api/get-receipts';
import { categoryText } from './accounting-category-select';

/** Money that moved or will (docs/money.md): what the close policy asks receipts and memos of. */
const moved: readonly string[] = statusesOf(['posted', 'pending']);

/**
 * What the close policy admins set still asks of this transaction, as "Needs attention" counts
 * it: a receipt (money moved from the policy's amount up, none attached), a memo (booked to a
 * category that needs one, none written). Nothing while it lacks nothing, or while a part loads.
 */
export function PolicyNeeds({ transaction: t }: { transaction: Transaction }) {
  const policy = useQuery(closePolicyQueryOptions()).data;
  const notes = useQuery(notesQueryOptions(t.id)).data;
  const receipts = useQuery(receiptsQueryOptions(t.id)).data;
  const categories = useQuery(accountingCategoriesQueryOptions()).data;
  if (!policy || !notes || !receipts || !moved.includes(t.status)) return null;
  const needs: string[] = [];
  const from = policy.receiptFromCents;
  if (from !== null && Math.abs(t.amountCents) >= from && receipts.items.length === 0) {
    needs.push(`a receipt (policy: from ${formatCents(from)})`);
  }
  const category = notes.categoryId;
  if (category && policy.memoCategoryIds.includes(category) && notes.memo.trim() === '') {
    needs.push(`a memo (policy: ${categoryText(category, categories ?? [])})`);
  }
  if (needs.length === 0) return null;
  return (
    <p className="notice policy-needs" role="status">
      Still needs {needs.join(' and ')}.
    </p>
  );
}
