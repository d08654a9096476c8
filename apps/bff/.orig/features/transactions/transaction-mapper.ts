import type { Transaction } from '@card-console/shared/api/transactions';
import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';

/** Field by field, so unknown upstream fields never reach the browser. */
export function toApiTransaction(t: UpstreamTransaction): Transaction {
  const out: Transaction = {
    id: t.id,
    date: t.date,
    description: t.description,
    amountCents: t.amountCents,
    status: t.status,
    referenceNumber: t.referenceNumber,
  };
  if (t.authorizedAt !== undefined) out.authorizedAt = t.authorizedAt;
  if (t.createdAt !== undefined) out.createdAt = t.createdAt;
  if (t.merchantData) {
    out.merchant = {
      description: t.merchantData.description,
      categoryCode: t.merchantData.categoryCode,
    };
  }
  if (t.cardId !== undefined) out.cardId = t.cardId;
  if (t.originalCurrency) {
    const oc: NonNullable<Transaction['originalCurrency']> = {};
    if (t.originalCurrency.code !== undefined) oc.code = t.originalCurrency.code;
    if (t.originalCurrency.amountCents !== undefined)
      oc.amountCents = t.originalCurrency.amountCents;
    if (t.originalCurrency.conversionRate !== undefined)
      oc.conversionRate = t.originalCurrency.conversionRate;
    out.originalCurrency = oc;
  }
  if (t.declineReason !== undefined) out.declineReason = t.declineReason;
  return out;
}
