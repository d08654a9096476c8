import {
  type CardStatus,
  cardStatuses,
  utilizationPresets,
} from '@card-console/shared/upstream/card';
import { generateCvv, generatePan } from './luhn';
import type { CardWithSecrets } from './model';
import { intBetween, mulberry32, pick, randomToken } from './prng';
import { cardPurposes, firstNames, lastNames, timezones } from './word-lists';

export interface GeneratedCard {
  card: CardWithSecrets;
  subAccountIndex: number;
  createdMs: number;
}

const DAY_MS = 86_400_000;
const statusWeights = [0.62, 0.14, 0.1, 0.14]; // active, paused, inactive, closed

/** Cards are all issued before the transaction window opens, so every card can have history. */
export function generateCards(
  seed: number,
  count: number,
  subAccounts: number,
  windowStartMs: number,
): GeneratedCard[] {
  const rng = mulberry32(seed ^ 0x5eed_ca4d);
  const cards: GeneratedCard[] = [];
  for (let i = 0; i < count; i++) {
    const createdMs = windowStartMs - intBetween(rng, 1, 365) * DAY_MS - intBetween(rng, 0, DAY_MS);
    const created = new Date(createdMs);
    const pan = generatePan(rng);
    let r = rng();
    let status: CardStatus = 'active';
    for (let s = 0; s < statusWeights.length; s++) {
      r -= statusWeights[s] ?? 0;
      if (r < 0) {
        status = cardStatuses[s] ?? 'active';
        break;
      }
    }
    const maximum = intBetween(rng, 5, 100) * 5_000;
    const minimum = rng() < 0.7 ? 0 : intBetween(rng, 1, 10) * 100;
    const card: CardWithSecrets = {
      id: `card_${randomToken(rng, 12)}`,
      last4: pan.slice(-4),
      name: `${pick(rng, firstNames)} ${pick(rng, lastNames)}${pick(rng, cardPurposes)}`,
      expiryMonth: String(created.getUTCMonth() + 1).padStart(2, '0'),
      expiryYear: String(created.getUTCFullYear() + 4),
      status,
      createdAt: created.toISOString(),
      spendingConstraint: {
        spendingRule: {
          transactionSizeLimit: {
            minimum: { amountCents: minimum },
            maximum: { amountCents: maximum },
          },
        },
      },
      pan,
      cvv: generateCvv(rng),
    };
    // About a quarter of the cards have no utilization limit at all.
    if (rng() < 0.75) {
      const start = new Date(createdMs);
      card.spendingConstraint.spendingRule.utilizationLimit = {
        preset: pick(rng, utilizationPresets),
        timezone: pick(rng, timezones),
        limitAmount: { amountCents: intBetween(rng, 10, 500) * 10_000 },
        startDate: start.toISOString().slice(0, 10),
      };
    }
    cards.push({ card, subAccountIndex: i % Math.max(1, subAccounts), createdMs });
  }
  return cards;
}
