import { createHash } from 'node:crypto';
import { z } from 'zod';
import { newRequestId } from '../request-ids';
import { holdsCardNumber } from '../security/card-number-ids';

/**
 * A delivery's id, the idempotency key a receiver drops duplicates by (`${ruleId}:${transactionId}`):
 * the same alert sent twice carries the same id. It travels in headers, so it is short, plain
 * ASCII, and never holds a card number.
 */
export const deliveryIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/, 'letters, digits and . _ : - (at most 200)')
  .refine((id) => !holdsCardNumber(id), 'a delivery id never holds a card number');

/**
 * The email Message-ID for a delivery: the id's SHA-256 (a Message-ID allows no `:`), so a
 * resent alert has the same Message-ID and mail systems that drop duplicates drop it.
 */
export function messageIdFor(deliveryId: string, domain: string): string {
  const digest = createHash('sha256').update(deliveryId).digest('hex').slice(0, 40);
  return `<alert.${digest}@${domain}>`;
}

/**
 * A new random delivery id, `${prefix}.` and a request id's UUID (`newRequestId`: drawn again when
 * its digit groups read as a card number, which the senders refuse), for a message sent once (an
 * invitation). The prefix holds no digits.
 */
export function newDeliveryId(prefix: string): string {
  return `${prefix}.${newRequestId()}`;
}
