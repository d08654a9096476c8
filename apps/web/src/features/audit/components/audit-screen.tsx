import type { AuditRecord } from '@card-console/shared/api/audit';
import { formatCents } from '@card-console/shared/money';
import { Link, useNavigate } from '@tanstack/react-router';
import { LoadMore } from '../../../components/load-more';
import { useDocumentTitle } from '../../../components/use-document-title';
import { VirtualTable } from '../../../components/virtual-table';
import { formatDateTime, maskedLast4 } from '../../../lib/format';
import type { CardChoices } from '../../cards/api/use-card-choices';
import { isFiltered } from '../audit-filter';
import { ACTION_LABELS, METHOD_LABELS } from '../audit-labels';
import type { AuditSearch } from '../audit-search';
import { AuditFilters } from './audit-filters';

type Snapshot = NonNullable<AuditRecord['before']>;

const FIELDS = [
  ['name', 'Name'],
  ['minimumCents', 'Minimum'],
  ['maximumCents', 'Maximum'],
] as const;

function showValue(key: keyof Snapshot, s: Snapshot | undefined): string {
  const value = s?.[key];
  if (value === undefined) return 'none';
  return typeof value === 'string' ? `“${value}”` : formatCents(value);
}

function describeSnapshot(s: Snapshot | undefined): string {
  if (!s) return '—';
  const parts = FIELDS.filter(([key]) => s[key] !== undefined).map(
    ([key, label]) => `${label.toLowerCase()} ${showValue(key, s)}`,
  );
  return parts.length ? parts.join(', ') : '—';
}

/** What a change did: each field that moved, old → new; a one-sided record as it stands. */
function Change({ before, after }: Pick<AuditRecord, 'before' | 'after'>) {
  if (!before && !after) return <>—</>;
  if (!before || !after) {
    return (
      <>
        {describeSnapshot(before)} → {describeSnapshot(after)}
      </>
    );
  }
  const moved = FIELDS.filter(([key]) => before[key] !== after[key]);
  if (moved.length === 0) return <>No change</>;
  return (
    <>
      {moved.map(([key, label]) => (
        <div key={key}>
          {label}: {showValue(key, before)} → {showValue(key, after)}
        </div>
      ))}
    </>
  );
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
        <div className="audit-records">
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
                <td className="nowrap">{formatDateTime(r.at)}</td>
                <td>
                  {r.actor}
                  {r.role ? <span className="muted"> ({r.role})</span> : null}
                </td>
                <td>
                  {ACTION_LABELS[r.action] ?? r.action}
                  {r.method ? (
                    <span className="muted"> · {METHOD_LABELS[r.method] ?? r.method}</span>
                  ) : null}
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
                  <Change before={r.before} after={r.after} />
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
        </div>
      )}
    </section>
  );
}
