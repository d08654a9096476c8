import type { Transaction } from '@card-console/shared/api/transactions';
import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import type { CardLabel } from '../cards';
import { merchantCategoryName } from './merchant-categories';

/** Names the paying card (the card directory); a card it cannot name gets none. */
export interface CardNames {
  label(cardId: string): CardLabel | undefined;
}

/**
 * Field by field, so unknown upstream fields never reach the browser. The card and the
 * merchant category are named from memory (a Map lookup each); the card's label object is
 * shared by every row it names.
 */
export function toApiTransaction(t: UpstreamTransaction, cards?: CardNames): Transaction {
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
    const merchant: NonNullable<Transaction['merchant']> = {
      description: t.merchantData.description,
      categoryCode: t.merchantData.categoryCode,
    };
    const categoryName = merchantCategoryName(t.merchantData.categoryCode);
    if (categoryName !== undefined) merchant.categoryName = categoryName;
    out.merchant = merchant;
  }
  if (t.cardId !== undefined) {
    out.cardId = t.cardId;
    const card = cards?.label(t.cardId);
    if (card) out.card = card;
  }
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
