import type { AuditRecord } from '@card-console/shared/api/audit';
import { formatCents } from '@card-console/shared/money';
import { Link, useNavigate } from '@tanstack/react-router';
import { LoadMore } from '../../../components/load-more';
import { useDocumentTitle } from '../../../components/use-document-title';
import { VirtualTable } from '../../../components/virtual-table';
import { formatDateTime, maskedLast4 } from '../../../lib/format';
import type { CardChoices } from '../../cards/api/use-card-choices';
import { isFiltered } from '../audit-filter';
import { ACTION_LABELS } from '../audit-labels';
import type { AuditSearch } from '../audit-search';
import { AuditFilters } from './audit-filters';

type Snapshot = NonNullable<AuditRecord['before']>;

function describeSnapshot(s: Snapshot | undefined): string {
  if (!s) return '—';
  const parts: string[] = [];
  if (s.name !== undefined) parts.push(`name “${s.name}”`);
  if (s.minimumCents !== undefined) parts.push(`min ${formatCents(s.minimumCents)}`);
  if (s.maximumCents !== undefined) parts.push(`max ${formatCents(s.maximumCents)}`);
  return parts.length ? parts.join(', ') : '—';
}

function Target({ record: r }: { record: AuditRecord }) {
  if (r.cardId) {
    return (
      <Link to="/cards/$cardId" params={{ cardId: r.cardId }}>
        Card {r.cardId}
        {r.last4 ? ` (${maskedLast4(r.last4)})` : ''}
      </Link>
    );
  }
  if (r.subAccountId) return <>Sub account {r.subAccountId}</>;
  return <>{r.target ?? '—'}</>;
}

/** The records shown: the first page for the filters and every page "Load more" appended. */
export interface AuditList {
  records: readonly AuditRecord[];
  hasMore: boolean;
  loadingMore: boolean;
  /** The last "Load more" failed: shown with a Retry, the records so far stay. */
  loadMoreError: unknown;
  onLoadMore: () => void;
}

interface AuditScreenProps {
  search: AuditSearch;
  cards: CardChoices;
  list: AuditList;
  /** The records shown are the previous filters' while the new ones load. */
  busy: boolean;
}

export function AuditScreen({ search, cards, list, busy }: AuditScreenProps) {
  useDocumentTitle('Audit');
  const navigate = useNavigate();
  const { records } = list;
  return (
    <section aria-labelledby="audit-title">
      <div className="screen-header">
        <h1 id="audit-title">Audit</h1>
      </div>
      <p className="muted">Who revealed or changed what, and when. Newest first.</p>
      <AuditFilters
        search={search}
        cards={cards}
        onChange={(next) => void navigate({ to: '/audit', search: next })}
      />
      {records.length === 0 ? (
        <p className="empty" aria-busy={busy || undefined}>
          {isFiltered(search)
            ? 'No records match these filters.'
            : 'Nothing has been recorded yet.'}
        </p>
      ) : (
        <>
          <VirtualTable
            label="Audit records"
            columns={6}
            rows={records}
            rowKey={(r) => r.id}
            busy={busy || list.loadingMore}
            head={
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Outcome</th>
                <th scope="col">Reason</th>
                <th scope="col">Change</th>
              </tr>
            }
            renderRow={(r, index) => (
              <tr aria-rowindex={index + 2}>
                <td>{formatDateTime(r.at)}</td>
                <td>
                  {r.actor}
                  {r.role ? <span className="muted"> ({r.role})</span> : null}
                </td>
                <td>
                  {ACTION_LABELS[r.action] ?? r.action}
                  <br />
                  <span className="muted">
                    <Target record={r} />
                  </span>
                </td>
                <td>
                  <span className={`badge badge-${r.outcome}`}>{r.outcome}</span>
                </td>
                <td>{r.reason ?? r.detail ?? '—'}</td>
                <td>
                  {r.before || r.after ? (
                    <>
                      {describeSnapshot(r.before)} → {describeSnapshot(r.after)}
                    </>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            )}
          />
          <LoadMore
            shown={records.length}
            noun={['record', 'records']}
            hasMore={list.hasMore}
            loading={list.loadingMore}
            waiting={busy}
            error={list.loadMoreError}
            onLoadMore={list.onLoadMore}
          />
        </>
      )}
    </section>
  );
}
