// Which deliveries a raised alert makes, and their keys. A key is the alert's idempotency key,
// the channel and the recipient (an email address) or the webhook target: the outbox's primary
// key, so the same delivery can never be written twice, whoever raises or retries it.
/** What of a raised alert (`RaisedAlert`) decides its deliveries. */
export interface RaisedForDelivery {
  id: string;
  ruleId: string;
  idempotencyKey: string;
  /** Any kind: a transaction, a card's utilisation and a balance are delivered alike. */
  payload: { kind: string };
  ownerEmail: string | null;
  /** False: the owner may not be alerted (disabled or removed), so is not emailed. */
  ownerAlerted?: boolean;
  /** The owner of the alert's card, when the rule goes to them too and they have an email. */
  cardOwnerEmail?: string | null | undefined;
  channels: { email: boolean; webhookTargetId: string | null };
  digest: boolean;
}

export type DeliveryChannel = 'email' | 'webhook' | 'digest';

export interface PlannedDelivery {
  key: string;
  alertId: string | null;
  /** Null for a recipient's digest of folded emails, which spans rules. */
  ruleId: string | null;
  channel: DeliveryChannel;
  /** An email address (email, digest) or a webhook target's id. */
  recipient: string;
}

export const deliveryKey = (alertKey: string, channel: DeliveryChannel, recipient: string) =>
  `${alertKey}|${channel}|${recipient}`;

/** A digest is one per rule, UTC day and recipient. */
export const digestKey = (ruleId: string, day: string, recipient: string) =>
  deliveryKey(`digest:${ruleId}:${day}`, 'digest', recipient);

/**
 * One email per recipient (the owner, or every team recipient of a team rule, and the card's
 * owner when the rule goes to them too) unless the rule asks for a daily digest, and one webhook post to the rule's target: for every kind of alert
 * (a transaction, a card's utilisation, a balance), so each reaches the channels its rule chose.
 */
export function deliveriesOf(alert: RaisedForDelivery, team: readonly string[]): PlannedDelivery[] {
  const out: PlannedDelivery[] = [];
  const base = { alertId: alert.id, ruleId: alert.ruleId };
  if (alert.channels.email && !alert.digest) {
    const recipients = [
      ...(alert.ownerEmail === null
        ? team
        : alert.ownerAlerted === false
          ? []
          : [alert.ownerEmail]),
      ...(alert.cardOwnerEmail ? [alert.cardOwnerEmail] : []),
    ];
    for (const recipient of new Set(recipients)) {
      out.push({
        ...base,
        key: deliveryKey(alert.idempotencyKey, 'email', recipient),
        channel: 'email',
        recipient,
      });
    }
  }
  const target = alert.channels.webhookTargetId;
  if (target !== null) {
    out.push({
      ...base,
      key: deliveryKey(alert.idempotencyKey, 'webhook', target),
      channel: 'webhook',
      recipient: target,
    });
  }
  return out;
}
