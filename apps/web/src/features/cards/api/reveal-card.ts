import type { RevealBody } from '@card-console/shared/api/cards';
import { api } from '../../../lib/api-client';

/**
 * Asks for a card's full number and security code. Deliberately no query options and no
 * mutation hook: the answer must never enter a cache. The caller keeps it in component state.
 */
export function revealCard(cardId: string, body: RevealBody) {
  return api('cards.reveal', { params: { id: cardId }, body });
}
