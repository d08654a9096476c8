import { describe, expect, it, vi } from 'vitest';
import { passesLuhn, withCheckDigit } from './reference-luhn';
import { cardNumbersIn } from './secret-scan';

// The BFF's own guard, broken: it sees no card number anywhere. The scan that checks the BFF's
// logs and responses must not depend on it, or a broken guard would pass its own tests.
vi.mock('../platform/security/card-numbers', () => ({
  isLuhnValid: () => false,
  findCardNumbers: () => [],
}));

describe('the tests’ secret scan', () => {
  it('still finds card numbers when the BFF’s Luhn guard sees none', () => {
    const number = withCheckDigit(`${'5'.repeat(12)}444`);
    expect(cardNumbersIn(`{"pan":"${number}"}`)).toEqual([number]);
    const grouped = number.match(/.{4}/g)?.join(' ') ?? '';
    expect(cardNumbersIn(`PAN ${grouped}.`)).toEqual([grouped]);
  });

  it('does not flag a run that fails Luhn, or a 13-digit millisecond time', () => {
    const number = withCheckDigit('400000123456789');
    const wrong = `${number.slice(0, -1)}${(Number(number.at(-1)) + 5) % 10}`;
    let time = Date.UTC(2030, 0, 1);
    while (!passesLuhn(String(time))) time++;
    expect(cardNumbersIn(`id ${wrong} at ${time}`)).toEqual([]);
  });

  it('does not flag four-digit groups that are part of a UUID, but does flag them written alone', () => {
    const number = withCheckDigit('901046029324090');
    const [a, b, c, d] = number.match(/.{4}/g) ?? [];
    const uuid = `0e1f${a}-${b}-${c}-${d}ab12cd34`;
    expect(cardNumbersIn(`"requestId":"${uuid}"`)).toEqual([]);
    expect(cardNumbersIn(`card ${a}-${b}-${c}-${d} was used`)).toEqual([`${a}-${b}-${c}-${d}`]);
  });

  it('does not flag a run inside a hex digest, but does flag it beside a shorter word', () => {
    const number = withCheckDigit('7091611671207505');
    const hash = `${'ab'.repeat(20)}${number}cd`.padEnd(64, 'e');
    expect(hash).toHaveLength(64);
    expect(cardNumbersIn(`"hash":"${hash}"`)).toEqual([]);
    expect(cardNumbersIn(`"note":"card ${number}e"`)).toEqual([number]);
  });
});
