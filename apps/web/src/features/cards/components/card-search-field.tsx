import { CARD_SEARCH_MAX } from '@card-console/shared/index-vocabulary';
import { SearchField } from '../../../components/search-field';

/**
 * "Search cards": part of a name or the last four, applied as the person types (after a pause
 * shorter than the transactions': the BFF answers a card search from memory, never the card
 * service) or at once on Enter. "/" reaches it from anywhere on the page (a search box comes first).
 */
export function CardSearchField(props: {
  value: string | undefined;
  onChange: (q: string | undefined) => void;
}) {
  return (
    <SearchField
      label="Search cards"
      placeholder="Name or last four"
      className="card-search-field"
      maxLength={CARD_SEARCH_MAX}
      pauseMs={300}
      {...props}
    />
  );
}
