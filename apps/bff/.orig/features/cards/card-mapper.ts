import type { Card, RevealResponse } from '@card-console/shared/api/cards';
import type { UpstreamCard } from '@card-console/shared/upstream/card';

/**
 * A card as the browser may see it. Built field by field, so a PAN, a CVV or any unknown
 * field the upstream sends is dropped here and never reaches a response.
 */
export function toApiCard(upstream: UpstreamCard): Card {
  const rule = upstream.spendingConstraint?.spendingRule;
  const size = rule?.transactionSizeLimit;
  const card: Card = {
    id: upstream.id,
    last4: upstream.last4,
    name: upstream.name,
    status: upstream.status,
    transactionSizeLimit: {},
  };
  if (upstream.expiryMonth !== undefined) card.expiryMonth = upstream.expiryMonth;
  if (upstream.expiryYear !== undefined) card.expiryYear = upstream.expiryYear;
  if (upstream.createdAt !== undefined) card.createdAt = upstream.createdAt;
  if (size?.minimum) card.transactionSizeLimit.minimumCents = size.minimum.amountCents;
  if (size?.maximum) card.transactionSizeLimit.maximumCents = size.maximum.amountCents;
  const util = rule?.utilizationLimit;
  if (util) {
    const utilizationLimit: NonNullable<Card['utilizationLimit']> = {};
    if (util.preset !== undefined) utilizationLimit.preset = util.preset;
    if (util.timezone !== undefined) utilizationLimit.timezone = util.timezone;
    if (util.limitAmount) utilizationLimit.limitCents = util.limitAmount.amountCents;
    if (util.startDate !== undefined) utilizationLimit.startDate = util.startDate;
    card.utilizationLimit = utilizationLimit;
  }
  return card;
}

/** The reveal answer: the only place a PAN and CVV are put into a response. */
export function toRevealResponse(
  upstream: UpstreamCard & { pan: string; cvv: string },
): RevealResponse {
  const out: RevealResponse = {
    cardId: upstream.id,
    last4: upstream.last4,
    pan: upstream.pan,
    cvv: upstream.cvv,
  };
  if (upstream.expiryMonth !== undefined) out.expiryMonth = upstream.expiryMonth;
  if (upstream.expiryYear !== undefined) out.expiryYear = upstream.expiryYear;
  return out;
}

/** What an audit record keeps of a card's editable settings: never a number or code. */
export function limitSnapshot(card: UpstreamCard): {
  name: string;
  minimumCents?: number;
  maximumCents?: number;
} {
  const size = card.spendingConstraint?.spendingRule?.transactionSizeLimit;
  const snap: { name: string; minimumCents?: number; maximumCents?: number } = { name: card.name };
  if (size?.minimum) snap.minimumCents = size.minimum.amountCents;
  if (size?.maximum) snap.maximumCents = size.maximum.amountCents;
  return snap;
}
