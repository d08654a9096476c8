import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import { transactionStatuses } from '@card-console/shared/upstream/enums';
import { DayRangeFields, useDayRange } from '../../../components/day-range-fields';
import { Field } from '../../../components/field';
import { StatusFilter } from '../../../components/status-filter';
import type { CardChoices } from '../../cards/api/use-card-choices';
import { CardFilterField } from '../../cards/components/card-filter-field';
import type { TransactionsSearch } from '../transactions-search';

interface FiltersProps {
  search: TransactionsSearch;
  subAccounts: SubAccount[];
  cards: CardChoices;
  onChange: (next: TransactionsSearch) => void;
}

/** Every change becomes a new URL (a history entry), which resets paging to the first page. */
export function TransactionsFilters({ search, subAccounts, cards, onChange }: FiltersProps) {
  const set = (patch: Partial<TransactionsSearch>) =>
    onChange({ ...search, ...patch, cursors: undefined });

  const { setDay, dateError } = useDayRange(search, set);

  return (
    <fieldset className="filters">
      <legend className="visually-hidden">Filters</legend>
      <Field label="Sub account">
        {(control) => (
          <select
            {...control}
            required
            value={search.subAccountId ?? ''}
            onChange={(e) => set({ subAccountId: e.target.value })}
          >
            {subAccounts.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <DayRangeFields from={search.from} to={search.to} onDay={setDay} />
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
      {dateError ? (
        <p className="form-error" role="alert">
          {dateError}
        </p>
      ) : null}
    </fieldset>
  );
}
