import { resourceIdSchema } from '@card-console/shared/upstream/common';
import type { Request } from 'express';
import type { Refusals } from '../../core/endpoint';
import { holdsCardNumber, withCardNumbersMasked } from '../../platform/security/card-number-ids';

/**
 * The card id of a card route (`/cards/:id…`), as a refusal's audit record may hold it: a card
 * number typed in its place masked to its last four digits, a malformed id left out.
 */
export function cardIdOf(req: Request): string | undefined {
  const id = req.params?.id;
  if (typeof id !== 'string') return undefined;
  if (holdsCardNumber(id)) return withCardNumbersMasked(id);
  return resourceIdSchema.safeParse(id).success ? id : undefined;
}

/** How refusals of the card routes are recorded: each names its card. */
export const cardRefusals = {
  /** A card read: a refusal names the card. */
  read: { cardId: cardIdOf },
  /** A card's change, refused: recorded as `card.update`, naming the card. */
  update: { action: 'card.update', cardId: cardIdOf },
  /**
   * A reveal, refused: recorded as `card.reveal`, naming the card; reveals also count against
   * the tighter per-person reveal limit.
   */
  reveal: {
    action: 'card.reveal',
    cardId: cardIdOf,
    limit: { limiter: 'revealPerUser', message: 'Too many reveals; wait a minute.' },
  },
} as const satisfies Record<string, Refusals>;
