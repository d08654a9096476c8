import { describe, expect, it } from 'vitest';
import { neutralizeFormula, toCsvRecord } from './csv-row';

describe('CSV cells', () => {
  it('prefixes text that a spreadsheet would run as a formula', () => {
    for (const cell of ['=SUM(A1)', '+1', '-2+3', '@cmd', '\tx', '\rx']) {
      expect(neutralizeFormula(cell)).toBe(`'${cell}`);
    }
    expect(neutralizeFormula('Coffee')).toBe('Coffee');
  });

  it('keeps amounts numeric (negative for debits, two decimals)', () => {
    const record = toCsvRecord({
      id: 'tx_1',
      date: '2026-01-02T03:04:05.000Z',
      description: '=HYPERLINK("x")',
      amountCents: -1205,
      status: 'settled',
      referenceNumber: 'R1',
      originalCurrency: { code: 'EUR', amountCents: 1100, conversionRate: 1.0955 },
    });
    expect(record[2]).toBe(`'=HYPERLINK("x")`);
    expect(record[5]).toBe('-12.05');
    expect(record.slice(11)).toEqual(['EUR', '11.00', '1.0955']);
  });
});
