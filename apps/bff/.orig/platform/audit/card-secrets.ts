import { isLuhnValid } from '../security/card-numbers';

/**
 * Last line of defence before a record is written: a standalone 13-19 digit Luhn-valid run
 * (a PAN) or a `cvv`/`pan` key means a caller put a secret in the record. Refuse to write it.
 */
export function assertNoCardSecrets(line: string): void {
  for (const match of line.matchAll(/(?<!\d)\d{13,19}(?!\d)/g)) {
    if (isLuhnValid(match[0])) throw new Error('audit record refused: it contains a card number');
  }
  if (/"(pan|cvv|cvc|securityCode)"\s*:/i.test(line)) {
    throw new Error('audit record refused: it contains a card secret field');
  }
}
