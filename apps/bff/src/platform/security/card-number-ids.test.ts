import { describe, expect, it } from 'vitest';
import { testPan } from '../../test/test-pan';
import { holdsCardNumber, withCardNumbersMasked } from './card-number-ids';

const pan = testPan(987654321);
const last4 = pan.slice(-4);
const groups = pan.match(/\d{4}/g) ?? [];

describe('card numbers where an id belongs', () => {
  it.each([
    ['alone', pan, `•••• ${last4}`],
    ['inside an id', `card_${pan}_x`, `card_•••• ${last4}_x`],
    ['grouped with spaces', groups.join(' '), `•••• ${last4}`],
    ['grouped with dashes', `/cards/${groups.join('-')}/reveal`, `/cards/•••• ${last4}/reveal`],
    // The whole run is masked; what shows is its own last four digits.
    ['followed by three more digits (19 in all)', `${pan}000`, '•••• 9000'],
  ])('are found %s and masked to the last four digits', (_how, text, masked) => {
    expect(holdsCardNumber(text)).toBe(true);
    expect(withCardNumbersMasked(text)).toBe(masked);
  });

  it('a run of more than 19 digits counts as one, masked whole without being checked window by window', () => {
    const long = `${pan}${pan}`;
    expect(holdsCardNumber(long)).toBe(true);
    expect(withCardNumbersMasked(`/x/${long}/y`)).toBe('/x/[32 digits]/y');
    expect(withCardNumbersMasked('9'.repeat(16_000))).toBe('[16000 digits]');
  });

  it('ordinary ids and short numbers are left alone', () => {
    // 4000000000001 has 13 digits and fails the Luhn check.
    for (const text of ['card_pzw2d6bocqkk', '123456789012', 'tx-2026-01-02', '4000000000001']) {
      expect(holdsCardNumber(text)).toBe(false);
      expect(withCardNumbersMasked(text)).toBe(text);
    }
  });
});
