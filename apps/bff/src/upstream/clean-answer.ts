import type { UpstreamCard } from '@card-console/shared/upstream/card';
import type { ListEnvelope } from '@card-console/shared/upstream/common';
import type { UpstreamSubAccount } from '@card-console/shared/upstream/sub-account';
import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import type { UpstreamRedactor } from './upstream-redactor';

// Every string of a checked answer goes through the redactor before anything else sees it
// (responses, the CSV, audit records, logs), except what cannot carry text: date-times the
// schema checked (the export computes with them), enum members, `last4` (four digits), and the
// reveal's own PAN and CVV. Answers are changed in place: they are the schema's fresh output,
// not shared with anything yet.

export function cleanCard(card: UpstreamCard, redact: UpstreamRedactor): UpstreamCard {
  card.id = redact(card.id);
  card.name = redact(card.name);
  if (card.expiryMonth !== undefined) card.expiryMonth = redact(card.expiryMonth);
  if (card.expiryYear !== undefined) card.expiryYear = redact(card.expiryYear);
  const util = card.spendingConstraint?.spendingRule?.utilizationLimit;
  if (util) {
    if (util.preset !== undefined) util.preset = redact(util.preset);
    if (util.timezone !== undefined) util.timezone = redact(util.timezone);
    if (util.startDate !== undefined) util.startDate = redact(util.startDate);
  }
  return card;
}

export function cleanSubAccount<T extends Pick<UpstreamSubAccount, 'id' | 'name'>>(
  sub: T,
  redact: UpstreamRedactor,
): T {
  sub.id = redact(sub.id);
  sub.name = redact(sub.name);
  return sub;
}

export function cleanTransaction(
  t: UpstreamTransaction,
  redact: UpstreamRedactor,
): UpstreamTransaction {
  t.id = redact(t.id);
  t.description = redact(t.description);
  t.referenceNumber = redact(t.referenceNumber);
  if (t.merchantData) {
    t.merchantData.description = redact(t.merchantData.description);
    t.merchantData.categoryCode = redact(t.merchantData.categoryCode);
  }
  if (t.cardId !== undefined) t.cardId = redact(t.cardId);
  if (t.originalCurrency?.code !== undefined)
    t.originalCurrency.code = redact(t.originalCurrency.code);
  if (t.declineReason !== undefined) t.declineReason = redact(t.declineReason);
  if (t.subAccountId !== undefined) t.subAccountId = redact(t.subAccountId);
  return t;
}

/** A list page: each item, and the cursor (it reaches the browser too). */
export function cleanPage<T>(
  page: ListEnvelope<T>,
  cleanItem: (item: T, redact: UpstreamRedactor) => T,
  redact: UpstreamRedactor,
): ListEnvelope<T> {
  for (const item of page.items) cleanItem(item, redact);
  if (page.metadata.nextCursor !== undefined) {
    page.metadata.nextCursor = redact(page.metadata.nextCursor);
  }
  return page;
}
