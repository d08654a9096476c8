import type { AuditRecord } from '@card-console/shared/api/audit';
import { formatCents } from '@card-console/shared/money';
import { LoadMore } from '../../../components/load-more';
import { useDocumentTitle } from '../../../components/use-document-title';
import { VirtualTable } from '../../../components/virtual-table';
import { formatDateTime, maskedLast4 } from '../../../lib/format';

const ACTIONS: Record<AuditRecord['action'], string> = {
  'card.reveal': 'Revealed card details',
  'card.update': 'Changed card',
  'subAccount.create': 'Created sub account',
  'session.signIn': 'Signed in',
  'session.signOut': 'Signed out',
  'session.ended': 'Session ended',
  'access.denied': 'Access denied',
};

type Snapshot = NonNullable<AuditRecord['before']>;

function describeSnapshot(s: Snapshot | undefined): string {
  if (!s) return '—';
  const parts: string[] = [];
  if (s.name !== undefined) parts.push(`name “${s.name}”`);
  if (s.minimumCents !== undefined) parts.push(`min ${formatCents(s.minimumCents)}`);
  if (s.maximumCents !== undefined) parts.push(`max ${formatCents(s.maximumCents)}`);
  return parts.length ? parts.join(', ') : '—';
}

function target(r: AuditRecord): string {
  if (r.cardId) return `Card ${r.cardId}${r.last4 ? ` (${maskedLast4(r.last4)})` : ''}`;
  if (r.subAccountId) return `Sub account ${r.subAccountId}`;
  return r.target ?? '—';
}

interface AuditScreenProps {
  records: AuditRecord[];
  hasMore: boolean;
  loadingMore: boolean;
  /** The last "Load more" failed: shown with a Retry, the records so far stay. */
  loadMoreError: unknown;
  onLoadMore: () => void;
}

export function AuditScreen({
  records,
  hasMore,
  loadingMore,
  loadMoreError,
  onLoadMore,
}: AuditScreenProps) {
  useDocumentTitle('Audit');
  return (
    <section aria-labelledby="audit-title">
      <div className="screen-header">
        <h1 id="audit-title">Audit</h1>
      </div>
      <p className="muted">Who revealed or changed what, and when. Newest first.</p>
      {records.length === 0 ? (
        <p className="empty">Nothing has been recorded yet.</p>
      ) : (
        <VirtualTable
          label="Audit records"
          columns={6}
          rows={records}
          rowKey={(r) => r.id}
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
                {ACTIONS[r.action] ?? r.action}
                <br />
                <span className="muted">{target(r)}</span>
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
      )}
      {records.length > 0 ? (
        <LoadMore
          shown={records.length}
          noun={['record', 'records']}
          hasMore={hasMore}
          loading={loadingMore}
          error={loadMoreError}
          onLoadMore={onLoadMore}
        />
      ) : null}
    </section>
  );
}
