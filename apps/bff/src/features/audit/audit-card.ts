import type { AuditListItem, AuditRecord } from '@card-console/shared/api/audit';
import type { CardDirectory } from '../cards';

/** The record with its card's current name and last 4, when the card directory knows them. */
export function withCard(record: AuditRecord, cards: Pick<CardDirectory, 'label'>): AuditListItem {
  const label = record.cardId === undefined ? undefined : cards.label(record.cardId);
  if (!label) return record;
  return {
    ...record,
    card: { name: label.name, ...(label.last4 === undefined ? {} : { last4: label.last4 }) },
  };
}
