import type { TransactionStatus } from '@card-console/shared/upstream/transaction';

/**
 * How a sub account's figures follow from its transactions (exact, integer cents):
 * - balance = sum of amountCents over transactions whose money actually moved:
 *   settled, refund and dispute (a disputed debit stays debited until resolved).
 *   This includes the initial funding credit, later funding credits and ACH payments.
 * - spend = minus the sum of amountCents over card transactions (with a cardId) whose
 *   status is settled, pending, refund or dispute: net card spend, refunds reduce it.
 * pending, canceled, declined, failed, reversed and returned never touch the balance.
 */
export const balanceStatuses: ReadonlySet<TransactionStatus> = new Set([
  'settled',
  'refund',
  'dispute',
]);

export const spendStatuses: ReadonlySet<TransactionStatus> = new Set([
  'settled',
  'pending',
  'refund',
  'dispute',
]);
