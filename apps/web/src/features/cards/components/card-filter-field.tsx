import { Field } from '../../../components/field';
import { maskedLast4 } from '../../../lib/format';
import type { CardChoices } from '../api/use-card-choices';

/**
 * "Card" filter: every card by name and last four, loaded when the person first reaches for
 * the list. Until the full list is in, only the selected card is offered (a partial list
 * would look complete); a selected id the list does not hold is still shown, as its id.
 */
export function CardFilterField(props: {
  cardId: string | undefined;
  cards: CardChoices;
  onChange: (cardId: string | undefined) => void;
}) {
  const { cardId, cards } = props;
  const selected = cardId ? cards.cards.find((c) => c.id === cardId) : undefined;
  const options = cards.state === 'ready' ? cards.cards : selected ? [selected] : [];
  return (
    <Field label="Card">
      {(control) => (
        <select
          {...control}
          value={cardId ?? ''}
          onChange={(e) => props.onChange(e.target.value || undefined)}
          onFocus={cards.load}
          onPointerDown={cards.load}
          aria-busy={cards.state === 'loading'}
        >
          <option value="">All cards</option>
          {cardId && !options.some((c) => c.id === cardId) ? (
            <option value={cardId}>{cardId}</option>
          ) : null}
          {options.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({maskedLast4(c.last4)})
            </option>
          ))}
          {cards.state === 'loading' ? <option disabled>Loading cards…</option> : null}
          {cards.state === 'error' ? <option disabled>Cards could not be loaded</option> : null}
        </select>
      )}
    </Field>
  );
}
