import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import { transactionStatuses } from '@card-console/shared/upstream/enums';
import { DayRangeFields } from '../../../components/day-range-fields';
import { Field } from '../../../components/field';
import { FiltersFold } from '../../../components/filters-fold';
import { StatusFilter } from '../../../components/status-filter';
import { CardFilterField } from '../../cards';
import type { CardChoices } from '../../cards/api/use-card-choices';
import type { TransactionsSearch } from '../transactions-search';

interface FiltersProps {
  search: TransactionsSearch;
  subAccounts: SubAccount[];
  cards: CardChoices;
  onChange: (next: TransactionsSearch) => void;
}

/**
 * Every change becomes a new URL (a history entry) and shows the list from its first page.
 * On a phone the sub account stays in view and the other filters fold under "Filters",
 * which says how many are set.
 */
export function TransactionsFilters({ search, subAccounts, cards, onChange }: FiltersProps) {
  const set = (patch: Partial<TransactionsSearch>) =>
    onChange({ ...search, ...patch, pages: undefined });
  const setCount = [search.from, search.to, search.status, search.cardId].filter(Boolean).length;
  const selected = subAccounts.find((s) => s.id === search.subAccountId);

  return (
    <fieldset className="filters transactions-filters">
      <legend className="visually-hidden">Filters</legend>
      <Field label="Sub account" className="sub-account-field">
        {(control) => (
          <select
            {...control}
            required
            title={selected?.name}
            value={search.subAccountId ?? ''}
            onChange={(e) => set({ subAccountId: e.target.value })}
          >
            {subAccounts.map((s) => (
              <option key={s.id} value={s.id} title={s.name}>
                {s.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <FiltersFold setCount={setCount}>
        <DayRangeFields from={search.from} to={search.to} onChange={set} />
        <StatusFilter
          statuses={transactionStatuses}
          value={search.status}
          onChange={(status) => set({ status })}
        />
        <CardFilterField
          cardId={search.cardId}
          cards={cards}
          onChange={(cardId) => set({ cardId })}
        />
      </FiltersFold>
    </fieldset>
  );
}
