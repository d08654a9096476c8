// How many alert emails one recipient gets in an hour. A raise writes each email delivery
// `pending` (sent one by one) while the recipient's emails of the last hour are under the cap,
// and `folded` past it: never sent alone, listed in the recipient's digest of the day instead
// (folded-digest.ts), and in their inbox like every alert. Decided in the raise's transaction
// under a lock per recipient, so two replicas raising at once count each other's emails.
import type { SqlQueryable } from '../../platform/sql/sql-engine';
import type { PlannedDelivery } from './delivery-plan';

/** Emails a recipient gets one by one in an hour unless configured (ALERT_EMAILS_PER_HOUR). */
export const DEFAULT_EMAILS_PER_HOUR = 20;

const HOUR_MS = 3_600_000;

export type PlannedState = 'pending' | 'folded';

/**
 * The state each of `deliveries` is written in, in their order: webhooks are always sent; each
 * recipient's emails of the hour before `at` (pending, sent or failed) and these count
 * towards `perHour`, in the order given, and the rest are folded. The locks are held until the
 * transaction ends, taken in one order (recipients sorted), so two raises never wait in a cycle.
 */
export async function capEmails(
  tx: SqlQueryable,
  deliveries: readonly PlannedDelivery[],
  at: Date,
  perHour: number,
): Promise<PlannedState[]> {
  const recipients = [
    ...new Set(deliveries.filter((d) => d.channel === 'email').map((d) => d.recipient)),
  ].sort();
  const room = new Map<string, number>();
  if (recipients.length > 0) {
    await tx.query(
      `SELECT pg_advisory_xact_lock(hashtext('card-console alert email'), hashtext(r))
         FROM unnest($1::text[]) AS r`,
      [recipients],
    );
    const sent = await tx.query<{ recipient: string; n: number }>(
      `SELECT recipient, count(*)::int AS n FROM alert_delivery
        WHERE channel = 'email' AND recipient = ANY($1::text[]) AND created_at > $2::timestamptz
          AND state <> 'folded'
        GROUP BY recipient`,
      [recipients, new Date(at.getTime() - HOUR_MS).toISOString()],
    );
    const counted = new Map(sent.map((r) => [r.recipient, Number(r.n)]));
    for (const recipient of recipients) {
      room.set(recipient, perHour - (counted.get(recipient) ?? 0));
    }
  }
  return deliveries.map((d) => {
    if (d.channel !== 'email') return 'pending';
    const left = room.get(d.recipient) ?? 0;
    room.set(d.recipient, left - 1);
    return left > 0 ? 'pending' : 'folded';
  });
}
