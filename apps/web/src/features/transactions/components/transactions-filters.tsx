import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import { type TransactionStatus, transactionStatuses } from '@card-console/shared/upstream/enums';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { Field } from '../../../components/field';
import { FiltersFold } from '../../../components/filters-fold';
import { PeriodField, usePeriodChoice } from '../../../components/period-field';
import { SearchField } from '../../../components/search-field';
import { statusLabel } from '../../../components/status-badge';
import { wholeChoice } from '../../../lib/whole-choice';
import { sameOwnership } from '../../cards';
import { cardOwnersQueryOptions } from '../../cards/api/get-card-owners';
import type { CardChoices } from '../../cards/api/use-card-choices';
import { cardSubAccountsQueryOptions } from '../api/get-card-sub-accounts';
import { dollarsToCents, filterCount, type TransactionsSearch } from '../transactions-search';
import { CategoryField } from './category-field';
import { NotesFilters } from './notes-filters';

interface FiltersProps {
  search: TransactionsSearch;
  subAccounts: SubAccount[];
  cards: CardChoices;
  /** The chart of accounts; undefined while it loads. */
  categories: AccountingCategory[] | undefined;
  onChange: (next: TransactionsSearch, options?: { replace?: boolean }) => void;
}

/** Pause after the last key before a typed search applies (each key is not a new list). */
const TYPING_PAUSE_MS = 400;

/**
 * Every change becomes a new URL and shows the list from its first page. The search, the sub
 * account, the period and the category stay in view; on a phone the others (the notes' too)
 * fold under "Filters", which says how many are set.
 */
export function TransactionsFilters(props: FiltersProps) {
  const { search, subAccounts, cards, categories, onChange } = props;
  // With one sub account chosen, the card filter offers only the cards that spend from it.
  const spendsFrom = useQuery({
    ...cardSubAccountsQueryOptions(),
    enabled: search.subAccountId !== undefined && cards.state !== 'idle',
  });
  const inSubAccount =
    search.subAccountId !== undefined && spendsFrom.data
      ? new Set(
          spendsFrom.data.cards
            .filter((c) => c.subAccountIds.includes(search.subAccountId as string))
            .map((c) => c.cardId),
        )
      : undefined;
  const set = (patch: Partial<TransactionsSearch>, options?: { replace?: boolean }) =>
    onChange({ ...search, ...patch, pages: undefined }, options);
  const selected = subAccounts.find((s) => s.id === search.subAccountId);
  const period = usePeriodChoice(search);
  const custom = period.custom;

  return (
    <fieldset className={`filters transactions-filters${custom ? ' with-days' : ''}`}>
      <legend className="visually-hidden">Filters</legend>
      <SearchField
        label="Search"
        placeholder="Merchant, reference"
        className="search-field"
        maxLength={200}
        pauseMs={TYPING_PAUSE_MS}
        value={search.q}
        onChange={(q) => set({ q }, { replace: true })}
      />
      <Field label="Sub account" className="sub-account-field" hint={wholeChoice(selected?.name)}>
        {(control) => (
          <select
            {...control}
            title={selected?.name}
            value={search.subAccountId ?? ''}
            onChange={(e) => set({ subAccountId: e.target.value || undefined, cardId: undefined })}
          >
            <option value="">All sub accounts</option>
            {subAccounts.map((s) => (
              <option key={s.id} value={s.id} title={s.name}>
                {s.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <PeriodField range={search} choice={period} onChange={set} />
      <CategoryField
        onPick={(pick) =>
          set(
            pick.kind === 'group'
              ? { categoryGroup: [...new Set([...(search.categoryGroup ?? []), pick.key])] }
              : { category: [...new Set([...(search.category ?? []), ...pick.codes])] },
          )
        }
      />
      <FiltersFold setCount={filterCount(search)}>
        <StatusChoices value={search.status} onChange={(status) => set({ status })} />
        <Field label="Card" className="card-field">
          {(control) => (
            <select
              {...control}
              value=""
              onChange={(e) =>
                e.target.value &&
                set({ cardId: [...new Set([...(search.cardId ?? []), e.target.value])] })
              }
              onFocus={cards.load}
              onPointerDown={cards.load}
              aria-busy={cards.state === 'loading'}
            >
              <option value="">{search.cardId ? 'Add a card…' : 'All cards'}</option>
              {cards.cards
                .filter((c) => !search.cardId?.includes(c.id))
                .filter((c) => inSubAccount === undefined || inSubAccount.has(c.id))
                .map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                    {c.last4 ? ` ·${c.last4}` : ''}
                  </option>
                ))}
            </select>
          )}
        </Field>
        <AmountFields min={search.min} max={search.max} onChange={(range) => set(range)} />
        {/* On a wide window the cards' owners and teams and the notes' filters make a second,
            shorter row. */}
        <span className="filters-break" aria-hidden="true" />
        <OwnershipFilter search={search} set={set} />
        <NotesFilters search={search} categories={categories} set={set} />
      </FiltersFold>
    </fieldset>
  );
}

/**
 * The cards' owners and teams (Card Console's own), any of several of each, from the names given:
 * one picker of both (two would not fit the notes' row at 1280), each added one a chip above
 * the list ("Owner: …", "Team: …"). The names are asked for when the picker is first reached
 * for, as the cards are: the chips need none, and the landing asks for nothing more.
 */
function OwnershipFilter({
  search,
  set,
}: {
  search: TransactionsSearch;
  set: (patch: Partial<TransactionsSearch>) => void;
}) {
  const [wanted, setWanted] = useState(false);
  const directory = useQuery({ ...cardOwnersQueryOptions(), enabled: wanted });
  const load = () => {
    if (directory.isError) void directory.refetch();
    setWanted(true);
  };
  const offered = (names: string[] | undefined, chosen: string[] | undefined) =>
    (names ?? []).filter((name) => !chosen?.some((c) => sameOwnership(c, name)));
  const owners = offered(
    directory.data?.owners.map((o) => o.name),
    search.owner,
  );
  const teams = offered(
    directory.data?.teams.map((t) => t.name),
    search.team,
  );
  const pick = (value: string) => {
    const [kind, ...rest] = value.split(':');
    const name = rest.join(':');
    if (kind === 'owner') set({ owner: [...(search.owner ?? []), name] });
    if (kind === 'team') set({ team: [...(search.team ?? []), name] });
  };
  const any = search.owner !== undefined || search.team !== undefined;
  return (
    <Field label="Owner or team" className="ownership-field">
      {(control) => (
        <select
          {...control}
          value=""
          aria-busy={directory.isFetching || undefined}
          onChange={(e) => e.target.value && pick(e.target.value)}
          onFocus={load}
          onPointerDown={load}
        >
          <option value="">{any ? 'Add another…' : 'Any'}</option>
          {owners.length > 0 ? (
            <optgroup label="Owners">
              {owners.map((name) => (
                <option key={name} value={`owner:${name}`}>
                  {name}
                </option>
              ))}
            </optgroup>
          ) : null}
          {teams.length > 0 ? (
            <optgroup label="Teams">
              {teams.map((name) => (
                <option key={name} value={`team:${name}`}>
                  {name}
                </option>
              ))}
            </optgroup>
          ) : null}
          {directory.isPending && wanted ? (
            <option disabled>Loading owners and teams…</option>
          ) : null}
          {directory.isError ? (
            <option disabled>Owners and teams could not be loaded</option>
          ) : null}
          {directory.isSuccess &&
          directory.data.owners.length + directory.data.teams.length === 0 ? (
            <option disabled>No card has an owner or a team yet</option>
          ) : null}
        </select>
      )}
    </Field>
  );
}

/** Statuses, any of several: a disclosure of checkboxes saying what is chosen. */
function StatusChoices({
  value,
  onChange,
}: {
  value: TransactionStatus[] | undefined;
  onChange: (status: TransactionStatus[] | undefined) => void;
}) {
  const chosen = new Set(value ?? []);
  const toggle = (status: TransactionStatus) => {
    const next = new Set(chosen);
    if (next.has(status)) next.delete(status);
    else next.add(status);
    onChange(next.size > 0 ? transactionStatuses.filter((s) => next.has(s)) : undefined);
  };
  const details = useRef<HTMLDetailsElement>(null);
  // Closes as a menu does: a click elsewhere or Escape (focus back on its summary).
  useEffect(() => {
    const close = (event: Event) => {
      const element = details.current;
      if (!element?.open) return;
      if (event instanceof KeyboardEvent) {
        if (event.key !== 'Escape') return;
        element.open = false;
        element.querySelector('summary')?.focus();
      } else if (!element.contains(event.target as Node)) element.open = false;
    };
    document.addEventListener('pointerdown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('pointerdown', close);
      document.removeEventListener('keydown', close);
    };
  }, []);
  return (
    <div className="field status-choices">
      <span className="field-label" id="status-choices-label">
        Status
      </span>
      <details ref={details}>
        <summary aria-describedby="status-choices-label">
          {/* One status by name; more by how many (their chips below name each): the field is
              too narrow for several names, and a name is never shown cut. */}
          {!value
            ? 'All statuses'
            : value.length === 1
              ? statusLabel(value[0] as TransactionStatus)
              : `${value.length} statuses`}
        </summary>
        <fieldset>
          <legend className="visually-hidden">Statuses to show</legend>
          {transactionStatuses.map((s) => (
            <label key={s}>
              <input type="checkbox" checked={chosen.has(s)} onChange={() => toggle(s)} />{' '}
              {statusLabel(s)}
            </label>
          ))}
        </fieldset>
      </details>
    </div>
  );
}

/** Smallest and largest amount, in dollars; applied when left or on Enter, once valid. */
function AmountFields({
  min,
  max,
  onChange,
}: {
  min: string | undefined;
  max: string | undefined;
  onChange: (range: { min: string | undefined; max: string | undefined }) => void;
}) {
  const [draft, setDraft] = useState({ min: min ?? '', max: max ?? '' });
  const [applied, setApplied] = useState({ min, max });
  if (applied.min !== min || applied.max !== max) {
    setApplied({ min, max });
    setDraft({ min: min ?? '', max: max ?? '' });
  }
  const centsOf = (typed: string) => (typed.trim() === '' ? null : dollarsToCents(typed));
  const low = centsOf(draft.min);
  const high = centsOf(draft.max);
  const error =
    low === undefined || high === undefined
      ? 'Enter amounts in dollars, such as 1,234.50.'
      : low !== null && high !== null && low > high
        ? 'The smallest amount is above the largest.'
        : undefined;
  const apply = () => {
    if (error) return;
    const next = { min: draft.min.trim() || undefined, max: draft.max.trim() || undefined };
    if (next.min !== min || next.max !== max) onChange(next);
  };
  const id = useId();
  const input = (end: 'min' | 'max', label: string) => (
    <input
      aria-label={label}
      aria-describedby={error ? `${id}-error` : undefined}
      aria-invalid={error ? true : undefined}
      inputMode="decimal"
      placeholder={end}
      value={draft[end]}
      onChange={(e) => setDraft({ ...draft, [end]: e.target.value })}
      onBlur={apply}
      onKeyDown={(e) => {
        if (e.key === 'Enter') apply();
      }}
    />
  );
  // One field of two boxes: "Amount ($)" over "min – max", each box named whole for a screen
  // reader ("Amount from", "Amount to"); the row of filters keeps every label whole (issue 48).
  return (
    <fieldset className="field amount-field">
      <legend className="field-label">Amount ($)</legend>
      <span className="amount-range">
        {input('min', 'Amount from')}
        <span aria-hidden="true">–</span>
        {input('max', 'Amount to')}
      </span>
      {error ? (
        <small id={`${id}-error`} className="field-error">
          {error}
        </small>
      ) : null}
    </fieldset>
  );
}
