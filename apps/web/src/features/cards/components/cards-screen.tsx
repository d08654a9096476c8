import type { CardPage } from '@card-console/shared/api/cards';
import { cardStatuses } from '@card-console/shared/upstream/enums';
import { Link, useNavigate } from '@tanstack/react-router';
import { Field } from '../../../components/field';
import { Pager } from '../../../components/pager';
import { StatusBadge } from '../../../components/status-badge';
import { StatusFilter } from '../../../components/status-filter';
import { useDocumentTitle } from '../../../components/use-document-title';
import { pageNumber, popCursor, pushCursor } from '../../../lib/cursor-stack';
import { formatExpiry, maskedLast4 } from '../../../lib/format';
import type { CardsSearch } from '../cards-search';
import { TransactionLimits, UtilizationLimit } from './card-limits';

interface CardsScreenProps {
  search: CardsSearch;
  page: CardPage;
  /** The page shown is the previous one while the requested one loads. */
  busy: boolean;
}

export function CardsScreen({ search, page, busy: loading }: CardsScreenProps) {
  useDocumentTitle('Cards');
  const navigate = useNavigate();
  const go = (next: CardsSearch) => void navigate({ to: '/cards', search: next });
  const setFilter = (patch: Partial<CardsSearch>) =>
    go({ ...search, ...patch, cursors: undefined });

  return (
    <section aria-labelledby="cards-title">
      <div className="screen-header">
        <h1 id="cards-title">Cards</h1>
      </div>
      <div className="filters">
        <StatusFilter
          statuses={cardStatuses}
          value={search.status}
          onChange={(status) => setFilter({ status })}
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
      {page.items.length === 0 ? (
        <p className="empty">No cards match these filters.</p>
      ) : (
        <div className="table-wrap" aria-busy={loading}>
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Number</th>
                <th scope="col">Status</th>
                <th scope="col">Expiry</th>
                <th scope="col">Per transaction</th>
                <th scope="col">Utilization limit</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((card) => (
                <tr key={card.id}>
                  <th scope="row">
                    <Link to="/cards/$cardId" params={{ cardId: card.id }} search={search}>
                      {card.name}
                    </Link>
                  </th>
                  <td className="mono">{maskedLast4(card.last4)}</td>
                  <td>
                    <StatusBadge status={card.status} />
                  </td>
                  <td>{formatExpiry(card.expiryMonth, card.expiryYear)}</td>
                  <td>
                    <TransactionLimits card={card} />
                  </td>
                  <td>
                    <UtilizationLimit card={card} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        label="Cards"
        page={pageNumber(search.cursors)}
        hasPrevious={(search.cursors?.length ?? 0) > 0}
        hasNext={page.nextCursor !== undefined}
        busy={loading}
        onPrevious={() => go({ ...search, cursors: popCursor(search.cursors) })}
        onNext={() =>
          page.nextCursor && go({ ...search, cursors: pushCursor(search.cursors, page.nextCursor) })
        }
      />
    </section>
  );
}
