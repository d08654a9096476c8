import { containsCardNumber } from '../security/card-numbers';

const SECRET_FIELD = /^(pan|cvv|cvc|securityCode)$/i;

/**
 * Last line of defence before a record is written: a card number in any of its values (found
 * by the same matcher that masks them everywhere else, so `4000.0012.3456.7899` or digits
 * split by no-break spaces count too) or a `pan`/`cvv` field means a caller put a secret in
 * the record. Refuse to write it. The values are checked as they are, not as JSON, where an
 * escaped line break (`\n`) between digit groups would hide the grouping.
 */
export function assertNoCardSecrets(record: unknown): void {
  if (typeof record === 'string' || typeof record === 'number') {
    if (containsCardNumber(String(record))) {
      throw new Error('audit record refused: it contains a card number');
    }
  } else if (record && typeof record === 'object') {
    for (const [key, value] of Object.entries(record)) {
      if (SECRET_FIELD.test(key)) {
        throw new Error('audit record refused: it contains a card secret field');
      }
      assertNoCardSecrets(value);
    }
  }
}
