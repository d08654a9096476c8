import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import { transactionStatuses } from '@card-console/shared/upstream/enums';
import { useState } from 'react';
import { DayRangeFields } from '../../../components/day-range-fields';
import { Field } from '../../../components/field';
import { StatusFilter } from '../../../components/status-filter';
import { maskedLast4 } from '../../../lib/format';
import type { CardChoices } from '../../cards/api/use-card-choices';
import type { TransactionsSearch } from '../transactions-search';

interface FiltersProps {
  search: TransactionsSearch;
  subAccounts: SubAccount[];
  cards: CardChoices;
  onChange: (next: TransactionsSearch) => void;
}

/** Every change becomes a new URL (a history entry), which resets paging to the first page. */
export function TransactionsFilters({ search, subAccounts, cards, onChange }: FiltersProps) {
  const [dateError, setDateError] = useState<string | undefined>();
  const set = (patch: Partial<TransactionsSearch>) =>
    onChange({ ...search, ...patch, cursors: undefined });

  const setDay = (which: 'from' | 'to', value: string) => {
    const next = { from: search.from, to: search.to, [which]: value || undefined };
    if (next.from && next.to && next.from > next.to) {
      setDateError('The start date must not be after the end date.');
      return;
    }
    setDateError(undefined);
    set({ [which]: value || undefined });
  };

  const selected = search.cardId ? cards.cards.find((c) => c.id === search.cardId) : undefined;
  // Until the full list is in, offer the selected card only: a partial list would look complete.
  const options = cards.state === 'ready' ? cards.cards : selected ? [selected] : [];
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
      <Field label="Card">
        {(control) => (
          <select
            {...control}
            value={search.cardId ?? ''}
            onChange={(e) => set({ cardId: e.target.value || undefined })}
            onFocus={cards.load}
            onPointerDown={cards.load}
            aria-busy={cards.state === 'loading'}
          >
            <option value="">All cards</option>
            {search.cardId && !options.some((c) => c.id === search.cardId) ? (
              <option value={search.cardId}>{search.cardId}</option>
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
      {dateError ? (
        <p className="form-error" role="alert">
          {dateError}
        </p>
      ) : null}
    </fieldset>
  );
}
