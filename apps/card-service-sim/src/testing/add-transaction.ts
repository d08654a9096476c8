// A test hook outside the card service's contract: a new transaction, dated now, as if the card
// program had just seen it (a decline, a charge, a funding credit). The service's own
// transactions are generated once and never change; tests of what a client does with a new
// one (the BFF's index sync raising an alert) need one to appear.
import {
  type TransactionStatus,
  transactionStatuses,
} from '@card-console/shared/upstream/transaction';
import { z } from 'zod';
import type { Dataset } from '../data/dataset';
import { Kind, statusCode } from '../data/generate-transactions';
import type { Transaction } from '../data/model';
import { badRequest, notFound } from '../http/http-error';

/** What a card payment can end as; the generator's card statuses. */
const CARD_STATUSES: ReadonlySet<TransactionStatus> = new Set([
  'pending',
  'settled',
  'declined',
  'canceled',
  'refund',
  'reversed',
  'dispute',
]);
/** What a funding credit or an ACH payment can end as. */
const OTHER_STATUSES: ReadonlySet<TransactionStatus> = new Set([
  'pending',
  'settled',
  'failed',
  'returned',
]);

const text = z.string().trim().min(1).max(200);

export const newTransactionSchema = z.strictObject({
  subAccountId: z.string().min(1).max(100),
  /** A card transaction when set (the card must be the sub account's); otherwise a funding credit (amount above 0) or an ACH payment. */
  cardId: z.string().min(1).max(100).optional(),
  /** Signed, as the service lists it: a card charge is negative, a refund positive. */
  amountCents: z
    .number()
    .int()
    .min(-100_000_000_000)
    .max(100_000_000_000)
    .refine((n) => n !== 0, 'must not be 0'),
  status: z.enum(transactionStatuses),
  /** Declined card transactions only; otherwise one of the service's own reasons. */
  declineReason: text.optional(),
  /** The transaction's description: a card transaction's merchant name. */
  description: text.optional(),
  /** Card transactions only: `merchantData.description`, the merchant as the network sends it. */
  merchantDescription: text.optional(),
  /** Card transactions only: the merchant category code (four digits). */
  categoryCode: z
    .string()
    .regex(/^\d{4}$/, 'must be four digits')
    .optional(),
});

export type NewTransaction = z.input<typeof newTransactionSchema>;

/** Appends the transaction; throws an `HttpError` (400 or 404) naming what is wrong. */
export function addTransaction(data: Dataset, input: NewTransaction, nowMs: number): Transaction {
  const parsed = newTransactionSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
    throw badRequest(`invalid transaction: ${issues.join('; ')}`);
  }
  const t = parsed.data;
  const subIndex = data.subAccounts.indexOf(t.subAccountId);
  if (subIndex === undefined) throw notFound(`sub account ${t.subAccountId} not found`);
  if (t.declineReason !== undefined && t.status !== 'declined') {
    throw badRequest('declineReason: only a declined transaction has one');
  }

  let row: number;
  if (t.cardId !== undefined) {
    const cardIndex = data.cards.indexOf(t.cardId);
    if (cardIndex === undefined) throw notFound(`card ${t.cardId} not found`);
    if (data.cards.subIndexAt(cardIndex) !== subIndex) {
      throw badRequest(`cardId: card ${t.cardId} belongs to another sub account`);
    }
    if (!CARD_STATUSES.has(t.status)) {
      throw badRequest(`status: a card transaction cannot be ${t.status}`);
    }
    if ((t.status === 'refund') !== t.amountCents > 0) {
      throw badRequest(
        'amountCents: a card refund is above 0, every other card transaction below 0',
      );
    }
    const name = t.description ?? 'Test merchant';
    const merchant = data.transactions.addMerchant({
      name,
      raw: t.merchantDescription ?? name.toUpperCase(),
      mcc: t.categoryCode ?? '5999',
    });
    row = data.transactions.append({
      subIndex,
      cardIndex,
      kind: Kind.card,
      status: statusCode[t.status],
      amountCents: t.amountCents,
      dateMs: nowMs,
      merchant,
    });
    if (t.declineReason !== undefined) {
      data.transactions.overrideText(row, { declineReason: t.declineReason });
    }
  } else {
    if (t.merchantDescription !== undefined || t.categoryCode !== undefined) {
      throw badRequest('merchantDescription and categoryCode are for card transactions (cardId)');
    }
    if (!OTHER_STATUSES.has(t.status)) {
      throw badRequest(`status: a transaction without a card cannot be ${t.status}`);
    }
    row = data.transactions.append({
      subIndex,
      cardIndex: -1,
      kind: t.amountCents > 0 ? Kind.funding : Kind.payment,
      status: statusCode[t.status],
      amountCents: t.amountCents,
      dateMs: nowMs,
      merchant: 0,
    });
    if (t.description !== undefined) {
      data.transactions.overrideText(row, { description: t.description });
    }
  }
  // The sub account's balance and spend follow from its transactions (`ledger-rules.ts`).
  const { balanceCents, spendCents } = data.transactions.figures(subIndex);
  data.subAccounts.setFigures(subIndex, balanceCents, spendCents);
  return data.transactions.materialize(row);
}
