import { Link } from '@tanstack/react-router';
import type { MouseEvent } from 'react';
import { maskedLast4 } from '../../../lib/format';

/** "Travel card •••• 4242": the name, then the last four; the id when the card has no name here. */
export function cardLabel(
  cardId: string,
  card: { name: string; last4?: string | undefined } | undefined,
) {
  if (!card) return cardId;
  return card.last4 ? `${card.name} ${maskedLast4(card.last4)}` : card.name;
}

/**
 * A link to the card that paid: its name (its holder) and its last four, both whole; a long
 * name wraps, even inside a word, and the last four never break (a list stacks them).
 */
export function CardRef(props: {
  cardId: string;
  card: { name: string; last4?: string | undefined } | undefined;
  onClick?: (event: MouseEvent) => void;
}) {
  const { cardId, card, onClick } = props;
  return (
    <Link to="/cards/$cardId" params={{ cardId }} className="card-ref" onClick={onClick}>
      {card ? (
        <>
          <span className="card-ref-name">{card.name}</span>
          {card.last4 ? (
            <>
              {' '}
              <span className="card-ref-last4">{maskedLast4(card.last4)}</span>
            </>
          ) : null}
        </>
      ) : (
        <span className="card-ref-name mono">{cardId}</span>
      )}
    </Link>
  );
}
