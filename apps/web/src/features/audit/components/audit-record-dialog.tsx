import type { AuditListItem } from '@card-console/shared/api/audit';
import type { Card } from '@card-console/shared/api/cards';
import { Dialog } from '../../../components/dialog';
import { StatusBadge } from '../../../components/status-badge';
import { formatDateTime, maskedLast4 } from '../../../lib/format';
import { DETAIL_LABELS, METHOD_LABELS } from '../audit-labels';
import {
  actionText,
  isAttempt,
  snapshotRows,
  subAccountOf,
  transactionOf,
} from '../audit-record-text';

interface AuditRecordDialogProps {
  record: AuditListItem;
  /** Cards this tab already knows: a name for a card the BFF could not name. */
  known: Map<string, Card>;
  onClose: () => void;
}

/** What the record acted on, in full: the card's name, last four and id, or its sub account. */
function targetText(r: AuditListItem, known: Map<string, Card>): string | undefined {
  if (r.cardId) {
    const name = r.card?.name ?? known.get(r.cardId)?.name ?? r.before?.name;
    const last4 = r.last4 ?? r.card?.last4 ?? known.get(r.cardId)?.last4;
    return [name, last4 && maskedLast4(last4), r.cardId].filter(Boolean).join(' · ');
  }
  const transaction = transactionOf(r);
  if (transaction) {
    return [transaction, r.subAccountId && `sub account ${r.subAccountId}`]
      .filter(Boolean)
      .join(' · ');
  }
  const sub = subAccountOf(r).name;
  if (sub !== undefined || r.subAccountId) {
    return [sub && `“${sub}”`, r.subAccountId].filter(Boolean).join(' · ');
  }
  return r.target;
}

/**
 * One audit record whole, where the table's line cuts it short: who, what, why, the values
 * before and after (or, for a change refused or failed, the values it tried), and the request
 * id support asks for.
 */
export function AuditRecordDialog({ record: r, known, onClose }: AuditRecordDialogProps) {
  const rows = snapshotRows(r.before, r.after);
  const attempt = isAttempt(r);
  const sub = subAccountOf(r);
  const detail = sub.name !== undefined ? sub.rest : r.detail;
  const target = targetText(r, known);
  return (
    <Dialog title={`${actionText(r)} — ${r.outcome}`} onClose={onClose} className="audit-record">
      <dl className="pairs">
        <dt>When</dt>
        <dd>
          <time dateTime={r.at}>{formatDateTime(r.at)}</time>
        </dd>
        <dt>Who</dt>
        <dd>{r.role ? `${r.actor} · ${r.role}` : r.actor}</dd>
        {target ? (
          <>
            <dt>Target</dt>
            <dd>{target}</dd>
          </>
        ) : null}
        <dt>Outcome</dt>
        <dd>
          <StatusBadge status={r.outcome} />
          {detail ? ` ${DETAIL_LABELS[detail] ?? detail}` : null}
        </dd>
        {r.method ? (
          <>
            <dt>Proved by</dt>
            <dd>{METHOD_LABELS[r.method] ?? r.method}</dd>
          </>
        ) : null}
        <dt>Reason</dt>
        <dd>{r.reason ?? <span className="muted">none given</span>}</dd>
        <dt>Request id</dt>
        <dd>
          <code className="request-id">{r.requestId}</code>
        </dd>
      </dl>
      {rows.length ? (
        <div className="audit-record-change">
          <table>
            <caption className="visually-hidden">
              {attempt ? 'Values before and as attempted' : 'Values before and after'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Value</th>
                <th scope="col">Before</th>
                <th scope="col">
                  {r.outcome === 'started'
                    ? 'Asked for (outcome recorded next)'
                    : attempt
                      ? 'Attempted (not saved)'
                      : 'After'}
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.key}>
                  <th scope="row">{row.label}</th>
                  <td>{row.before ?? '—'}</td>
                  <td>{row.after ?? (attempt ? 'unchanged' : '—')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Dialog>
  );
}
