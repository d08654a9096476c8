import type { CardService } from '@card-console/card-service-sim';

/**
 * A card's editable values as the simulator holds them now, in the shape a PATCH's `expected`
 * (and a 409's `current`) takes: what a person looking at the card would have seen.
 */
export function cardValuesSeen(sim: CardService, id: string) {
  const card = sim.data.card(id);
  if (!card) throw new Error(`no card ${id}`);
  const limits = card.spendingConstraint.spendingRule.transactionSizeLimit;
  return {
    name: card.name,
    minimumCents: limits.minimum.amountCents,
    maximumCents: limits.maximum.amountCents,
  };
}
