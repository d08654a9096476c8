import { randomUUID } from 'node:crypto';
import { holdsCardNumber } from './security/card-number-ids';

/**
 * A new request id: a random UUID, drawn again in the rare case (a few in a hundred) that its
 * digit groups read as a card number (`12345678-1234-4567-8912-…`: the matcher joins groups
 * across `-`). The id is logged and written into audit records, whose guard refuses a card
 * number, and the SPA puts it in a URL (an export's receipt), where a card-number-shaped path
 * segment is refused with 400.
 */
export function newRequestId(): string {
  for (;;) {
    const id = randomUUID();
    if (!holdsCardNumber(id)) return id;
  }
}
