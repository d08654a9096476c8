import type { AuditListItem } from '@card-console/shared/api/audit';
import { centsToDollarInput } from '@card-console/shared/money';
import { exportText } from '../transactions';

/** The file's columns: times in the person's zone (with its offset) and in UTC, then the record. */
export function auditCsvColumns(timeZone: string): string[] {
  return [
    'id',
    `local time (${timeZone})`,
    'UTC time',
    'who',
    'role',
    'action',
    'attempted action',
    'outcome',
    'method',
    'target',
    'card id',
    'card name',
    'last 4',
    'sub account id',
    'reason',
    'detail',
    'name before',
    'minimum before',
    'maximum before',
    'name after',
    'minimum after',
    'maximum after',
    'request id',
  ];
}

/**
 * An instant as local ISO 8601 with the zone's offset then (`2026-11-24T07:39:05-05:00`), so a
 * spreadsheet or a script reads the same instant the UTC column holds.
 */
export function zonedTime(timeZone: string): (iso: string) => string {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'longOffset',
  });
  return (iso) => {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) return '';
    const p: Record<string, string> = {};
    for (const part of format.formatToParts(ms)) p[part.type] = part.value;
    // "GMT-05:00", or a bare "GMT" at offset zero.
    const offset = p.timeZoneName?.slice(3) || '+00:00';
    return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${offset}`;
  };
}

// Every text field may hold what a person typed (a reason, a card or sub account name, an
// email): a spreadsheet must never run it, and a card number written in a way an older build
// let through (the trail keeps records as they were) leaves masked.
const text = (value: string | undefined): string => (value === undefined ? '' : exportText(value));
const money = (cents: number | undefined): string =>
  cents === undefined ? '' : centsToDollarInput(cents);

/** One record as a CSV record, in `auditCsvColumns` order. */
export function toAuditCsvRecord(r: AuditListItem, local: (iso: string) => string): string[] {
  return [
    r.id,
    local(r.at),
    r.at,
    text(r.actor),
    r.role ?? '',
    r.action,
    r.attempted ?? '',
    r.outcome,
    r.method ?? '',
    text(r.target),
    text(r.cardId),
    text(r.card?.name),
    text(r.last4 ?? r.card?.last4),
    text(r.subAccountId),
    text(r.reason),
    text(r.detail),
    text(r.before?.name),
    money(r.before?.minimumCents),
    money(r.before?.maximumCents),
    text(r.after?.name),
    money(r.after?.minimumCents),
    money(r.after?.maximumCents),
    text(r.requestId),
  ];
}
