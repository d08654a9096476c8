import type { AuditListItem } from '@card-console/shared/api/audit';
import type { Card } from '@card-console/shared/api/cards';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { StatusBadge } from '../../../components/status-badge';
import { VirtualTable } from '../../../components/virtual-table';
import { formatDateTime, formatShortDateTime, maskedLast4 } from '../../../lib/format';
import { resourceId } from '../../../lib/search-params';
import { actionText, detailText, subAccountOf, transactionOf } from '../audit-record-text';
import { AuditRecordDialog } from './audit-record-dialog';

/** The table's columns, in order, with their classes (widths, and the phone's labels). */
const AUDIT_COLUMNS = [
  ['When', 'audit-when'],
  ['Who', 'audit-who'],
  ['Action', 'audit-action'],
  ['Target', 'audit-target'],
  ['Outcome', 'audit-outcome'],
  ['Reason', 'audit-reason'],
  ['Details', 'audit-details'],
] as const;

interface AuditTableProps {
  records: readonly AuditListItem[];
  /** Cards this tab already knows: names for cards the BFF could not name. */
  cards: Card[];
  busy: boolean;
}

/** How the BFF records a card number typed where a card id belongs. */
const MASKED_CARD_NUMBER = /•••• \d{4}|\[\d+ digits\]/;

/** What a record acted on: its card (by name where known) or sub account, else its target. */
function Target({ record: r, known }: { record: AuditListItem; known: Map<string, Card> }) {
  if (r.cardId) {
    // Its name now (the BFF's card directory, or this tab's cards), else as the record saw it.
    const name = r.card?.name ?? known.get(r.cardId)?.name ?? r.after?.name ?? r.before?.name;
    const last4 = r.last4 ?? r.card?.last4 ?? known.get(r.cardId)?.last4;
    const title = [name, last4 && maskedLast4(last4), r.cardId].filter(Boolean).join(' · ');
    const shown = name ?? (last4 ? 'Card' : r.cardId);
    // The name wraps; the last four never break.
    const text = (
      <span className="audit-card">
        <span className="audit-card-name">{shown}</span>
        {last4 ? (
          <>
            {' '}
            <span className="audit-card-last4">{maskedLast4(last4)}</span>
          </>
        ) : null}
      </span>
    );
    // A card number typed where an id belongs is recorded masked (`•••• 7899`, or `[20 digits]`
    // for a longer run: the BFF's card-number-ids.ts): nothing to link to.
    if (!resourceId(r.cardId) || MASKED_CARD_NUMBER.test(r.cardId)) {
      return <td title={title}>{text}</td>;
    }
    return (
      <td title={title}>
        <Link to="/cards/$cardId" params={{ cardId: r.cardId }}>
          {text}
        </Link>
      </td>
    );
  }
  const transaction = transactionOf(r);
  if (transaction) {
    // The transaction it changed, opened from here; its sub account said on hover.
    const title = [transaction, r.subAccountId && `sub account ${r.subAccountId}`]
      .filter(Boolean)
      .join(' · ');
    return (
      <td title={title}>
        {resourceId(transaction) ? (
          <Link to="/transactions/$transactionId" params={{ transactionId: transaction }}>
            {transaction}
          </Link>
        ) : (
          transaction
        )}
      </td>
    );
  }
  const sub = subAccountOf(r).name;
  if (sub !== undefined || r.subAccountId) {
    const text = sub ?? r.subAccountId;
    return <td title={[sub, r.subAccountId].filter(Boolean).join(' · ')}>{text}</td>;
  }
  // A refusal already names what it tried; its route adds nothing a reader needs.
  if (!r.target || (r.action === 'access.denied' && r.attempted)) {
    return (
      <td className="muted" data-empty="">
        —
      </td>
    );
  }
  return <td title={r.target}>{r.target}</td>;
}

/** A cell's text, whole (it wraps); "—" (and nothing stacked) when empty. */
function TextCell({ text, label }: { text: string | undefined; label: string }) {
  if (!text) {
    return (
      <td className="muted" data-label={label} data-empty="">
        —
      </td>
    );
  }
  return <td data-label={label}>{text}</td>;
}

/**
 * A line per record on a wide window, a long value wrapping in its column (never cut), stacked
 * on a phone: when and outcome, action and target, who, reason and details. Rows differ in
 * height, so the windowed table measures each one it draws.
 */
export function AuditTable({ records, cards, busy }: AuditTableProps) {
  const known = new Map(cards.map((c) => [c.id, c]));
  // The record opened whole (its time is the button that opens it).
  const [opened, setOpened] = useState<AuditListItem>();
  return (
    <>
      {opened ? (
        <AuditRecordDialog record={opened} known={known} onClose={() => setOpened(undefined)} />
      ) : null}
      <VirtualTable
        label="Audit records"
        className="audit-table"
        columns={AUDIT_COLUMNS.length}
        rows={records}
        rowKey={(r) => r.id}
        busy={busy}
        rowHeight={{ wide: 28, narrow: 104 }}
        head={
          <tr>
            {AUDIT_COLUMNS.map(([name, className]) => (
              <th key={name} scope="col" className={className}>
                {name}
              </th>
            ))}
          </tr>
        }
        renderRow={(r, index, measured) => {
          const action = actionText(r);
          return (
            <tr aria-rowindex={index + 2} {...measured}>
              <td>
                <button
                  type="button"
                  className="link-button"
                  aria-haspopup="dialog"
                  title={`${formatDateTime(r.at)}: open the whole record`}
                  onClick={() => setOpened(r)}
                >
                  <time dateTime={r.at}>{formatShortDateTime(r.at)}</time>
                </button>
              </td>
              <td>
                {r.actor}
                {r.role ? <span className="muted"> · {r.role}</span> : null}
              </td>
              <td>{action}</td>
              <Target record={r} known={known} />
              <td>
                <StatusBadge status={r.outcome} />
              </td>
              <TextCell text={r.reason} label="Reason" />
              <TextCell text={detailText(r)} label="Details" />
            </tr>
          );
        }}
      />
    </>
  );
}
