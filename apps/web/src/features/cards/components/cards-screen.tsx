import type { Card } from '@card-console/shared/api/cards';
import { cardStatuses } from '@card-console/shared/upstream/enums';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { Field } from '../../../components/field';
import { ListNotLoaded } from '../../../components/list-not-loaded';
import { PagedListFooter } from '../../../components/paged-list-footer';
import { pagesWords, type RejectedWords, SearchNotice } from '../../../components/search-notice';
import { StatusBadge } from '../../../components/status-badge';
import { StatusFilter } from '../../../components/status-filter';
import { useDocumentTitle } from '../../../components/use-document-title';
import { formatExpiry, maskedLast4 } from '../../../lib/format';
import type { PagedList } from '../../../lib/use-url-pages';
import { wholeChoice } from '../../../lib/whole-choice';
import { subAccountsQueryOptions } from '../../sub-accounts/api/get-sub-accounts';
import { cardOwnersQueryOptions } from '../api/get-card-owners';
import { ownershipChoices } from '../card-ownership';
import type { CardsSearch } from '../cards-search';
import { TransactionLimits, UtilizationLimit } from './card-limits';
import { CardSearchField } from './card-search-field';
import { SpendBar, SpendsFrom, useCardsMoney } from './cards-money';
import { OwnershipSpend } from './ownership-spend';

interface CardsScreenProps {
  search: CardsSearch;
  /** The cards shown: the list's first `pages` pages; undefined until the first arrives. */
  list: PagedList<Card> | undefined;
  /** Why the first page did not load: shown in the list's place, the filters kept. */
  error?: unknown;
  onRetry?: () => void;
  /** The cards shown are the previous filter's while the new list loads (or the first loads). */
  busy: boolean;
}

const NO_CARDS: readonly Card[] = [];

/** What the screen says about a link's value it left out. */
const SEARCH_WORDS: RejectedWords = {
  // Only a search longer than any name is left out (an empty one is no search: nothing to say).
  q: (v) =>
    v === ''
      ? undefined
      : `The link's search “${v}” is longer than a card's name can be; showing every card.`,
  status: (v) => `The link's status “${v}” isn't a card status; showing all statuses.`,
  sort: (v) => `The link's sort “${v}” isn't one this list offers; sorting by created date.`,
  direction: (v) => `The link's direction “${v}” isn't asc or desc; showing descending.`,
  owner: (v) =>
    `The link's owner “${v}” is blank or longer than an owner's name can be; showing every owner.`,
  team: (v) =>
    `The link's team “${v}” is blank or longer than a team's name can be; showing every team.`,
  pages: pagesWords,
};

export function CardsScreen({ search, list, error, onRetry, busy }: CardsScreenProps) {
  useDocumentTitle('Cards');
  const navigate = useNavigate();
  const money = useCardsMoney(list?.rows ?? NO_CARDS);
  const { data: subAccounts } = useQuery(subAccountsQueryOptions());
  const { data: directory } = useQuery(cardOwnersQueryOptions());
  // A new filter or sort shows the list from its first page.
  const setFilter = (patch: Partial<CardsSearch>) =>
    void navigate({ to: '/cards', search: { ...search, ...patch, pages: undefined } });

  return (
    <section aria-labelledby="cards-title">
      <div className="screen-header">
        <h1 id="cards-title">Cards</h1>
      </div>
      <SearchNotice words={SEARCH_WORDS} />
      <div className="filters cards-filters">
        {/* First, so it is in view on a phone and "/" reaches it: most visits look for one card. */}
        <CardSearchField
          value={search.q}
          onChange={(q) =>
            void navigate({
              to: '/cards',
              search: { ...search, q, pages: undefined },
              // Each pause in typing is not a step for Back to take.
              replace: true,
            })
          }
        />
        <Field
          label="Sub account"
          hint={wholeChoice(subAccounts?.find((s) => s.id === search.subAccountId)?.name)}
        >
          {(control) => (
            <select
              {...control}
              value={search.subAccountId ?? ''}
              onChange={(e) => setFilter({ subAccountId: e.target.value || undefined })}
              // The chosen name whole, where the field is narrower than it.
              title={subAccounts?.find((s) => s.id === search.subAccountId)?.name}
            >
              <option value="">All sub accounts</option>
              {/* A link's sub account shows before the names have loaded. */}
              {search.subAccountId && !subAccounts?.some((s) => s.id === search.subAccountId) ? (
                <option value={search.subAccountId}>{search.subAccountId}</option>
              ) : null}
              {(subAccounts ?? []).map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <StatusFilter
          statuses={cardStatuses}
          value={search.status}
          onChange={(status) => setFilter({ status })}
        />
        <OwnershipFilter
          label="Owner"
          all="All owners"
          names={directory?.owners.map((o) => o.name)}
          value={search.owner}
          onChange={(owner) => setFilter({ owner })}
        />
        <OwnershipFilter
          label="Team"
          all="All teams"
          names={directory?.teams.map((t) => t.name)}
          value={search.team}
          onChange={(team) => setFilter({ team })}
        />
        <Field label="Sort by">
          {(control) => (
            <select
              {...control}
              value={search.sort ?? 'createdAt'}
              onChange={(e) => setFilter({ sort: e.target.value as CardsSearch['sort'] })}
            >
              <option value="createdAt">Created date</option>
              <option value="name">Name</option>
              {/* The spend and share of its utilization limit that each card's row shows. */}
              <option value="spend">Spend</option>
              <option value="utilization">Utilization</option>
            </select>
          )}
        </Field>
        <Field label="Direction">
          {(control) => (
            <select
              {...control}
              value={search.direction ?? 'desc'}
              onChange={(e) => setFilter({ direction: e.target.value as CardsSearch['direction'] })}
            >
              <option value="desc">Descending</option>
              <option value="asc">Ascending</option>
            </select>
          )}
        </Field>
      </div>
      {search.subAccountId ? (
        <p className="muted">
          The cards with a transaction in this sub account, as the card service listed them in the
          last minute.
        </p>
      ) : null}
      {search.owner !== undefined || search.team !== undefined ? (
        <OwnershipSpend owner={search.owner} team={search.team} />
      ) : null}
      {search.sort === 'spend' || search.sort === 'utilization' ? (
        <p className="muted">
          Spend is within the current period of each card's utilization limit; cards that show none
          come last.
        </p>
      ) : null}
      {money.failed ? (
        <p className="form-error">
          The cards' spend could not be read from the index; the cards are shown without it.
        </p>
      ) : null}
      {!list ? (
        <ListNotLoaded error={error} busy={busy} onRetry={onRetry} />
      ) : list.rows.length === 0 ? (
        <p className="empty" aria-busy={busy || undefined}>
          {search.q === undefined
            ? 'No cards match these filters.'
            : `No card's name or last four matches “${search.q}”${
                search.status || search.subAccountId || search.owner || search.team
                  ? ' with these filters'
                  : ''
              }.`}
        </p>
      ) : (
        <>
          <section
            className="table-wrap"
            aria-label="Cards table"
            aria-busy={busy || list.loadingMore || undefined}
            // A scrollable region must be reachable by keyboard.
            // biome-ignore lint/a11y/noNoninteractiveTabindex: scroll container, see above
            tabIndex={0}
          >
            <table className="cards-table">
              <thead>
                <tr>
                  <th scope="col" className="col-name">
                    Name
                  </th>
                  <th scope="col" className="col-number">
                    Number
                  </th>
                  <th scope="col" className="col-status">
                    Status
                  </th>
                  <th scope="col" className="col-owner">
                    Owner
                  </th>
                  <th scope="col" className="col-team">
                    Team
                  </th>
                  <th scope="col" className="col-spends-from">
                    Spends from
                  </th>
                  <th scope="col" className="col-expiry">
                    Expiry
                  </th>
                  <th scope="col" className="col-limits">
                    Per transaction
                  </th>
                  <th scope="col" className="col-utilization">
                    Utilization limit
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.rows.map((card) => (
                  <tr key={card.id}>
                    {/* A long name wraps in its cell, whole (a word too long breaks anywhere). */}
                    <th scope="row" className="long-text">
                      <Link to="/cards/$cardId" params={{ cardId: card.id }} search={search}>
                        {card.name}
                      </Link>
                    </th>
                    <td className="mono nowrap col-number">{maskedLast4(card.last4)}</td>
                    <td className="col-status">
                      <StatusBadge status={card.status} />
                    </td>
                    <td className="col-owner" data-label="Owner">
                      {card.owner?.name ?? (
                        <span className="muted">
                          {card.ownershipUnavailable ? 'Unavailable' : '—'}
                        </span>
                      )}
                    </td>
                    <td className="col-team" data-label="Team">
                      {card.team ?? (
                        <span className="muted">
                          {card.ownershipUnavailable ? 'Unavailable' : '—'}
                        </span>
                      )}
                    </td>
                    <td className="col-spends-from" data-label="Spends from">
                      <SpendsFrom money={money.of(card.id)} name={money.subAccountName} />
                    </td>
                    <td className="nowrap col-expiry" data-label="Expires">
                      {formatExpiry(card.expiryMonth, card.expiryYear)}
                    </td>
                    <td className="col-limits" data-label="Per transaction">
                      <TransactionLimits card={card} />
                    </td>
                    <td className="col-utilization" data-label="Utilization limit">
                      <UtilizationLimit card={card} />
                      <SpendBar card={card} money={money.of(card.id)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <PagedListFooter
            list={list}
            noun={['card', 'cards']}
            busy={busy}
            capHint="Narrow the list with the search or the status filter to see the rest."
          />
        </>
      )}
    </section>
  );
}

/**
 * "Owner" or "Team": the names given to cards, from the directory; a link's name it does not
 * hold still shows, as the link wrote it, so the filter says what the list is filtered by.
 */
function OwnershipFilter(props: {
  label: string;
  all: string;
  /** The directory's names; undefined while it loads. */
  names: string[] | undefined;
  value: string | undefined;
  onChange: (value: string | undefined) => void;
}) {
  const { names, chosen } = ownershipChoices(props.names ?? [], props.value);
  return (
    <Field label={props.label} className="ownership-filter">
      {(control) => (
        <select
          {...control}
          value={chosen ?? ''}
          title={chosen}
          aria-busy={props.names === undefined || undefined}
          onChange={(e) => props.onChange(e.target.value || undefined)}
        >
          <option value="">{props.all}</option>
          {names.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
