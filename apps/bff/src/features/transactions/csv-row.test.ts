import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLuhnValid } from '../../platform/security/card-numbers';
import { csvColumns, neutralizeFormula, toCsvRecord } from './csv-row';
import { createLocalTimes } from './local-time';

/** What a spreadsheet may skip before the first character it reads as the cell's start. */
const skipped = /^[\s\p{Cc}\p{Cf}]*/u;
const formulaCharacters = ['=', '+', '-', '@', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'];

/** A record's cells by column name. */
const byColumn = (record: string[]) =>
  Object.fromEntries(csvColumns.map((column, i) => [column, record[i]]));

describe('CSV cells', () => {
  it('prefixes text that a spreadsheet would run as a formula', () => {
    for (const cell of ['=SUM(A1)', '+1', '-2+3', '@cmd', '\tx', '\rx']) {
      expect(neutralizeFormula(cell)).toBe(`'${cell}`);
    }
    expect(neutralizeFormula('Coffee')).toBe('Coffee');
  });

  it.each([
    ['a leading line feed', '\n=1+1'],
    ['a leading NUL', '\u0000=1'],
    ['= after leading spaces', '   =SUM(A1)'],
    ['= after a space and a tab', ' \t=1'],
    ['= after a no-break space', '\u00A0=1'],
    ['= after a zero-width space', '\u200B=1'],
    ['= after a right-to-left override', '\u202E=1'],
    ['+ after a line feed', '\n+1'],
    ['a full-width equals sign', '\uFF1DSUM(A1)'],
    ['a full-width plus sign', '\uFF0B1'],
    ['a full-width minus sign', '\uFF0D1'],
    ['a full-width at sign', '\uFF20cmd'],
    ['a full-width equals sign after spaces', '  \uFF1D1'],
  ])('prefixes a cell starting with %s', (_what, cell) => {
    expect(neutralizeFormula(cell)).toBe(`'${cell}`);
  });

  it.each([
    ['plain text', 'Coffee'],
    ['text after a space', ' Coffee'],
    ['a sign inside the text', 'A=B, C-D'],
    ['a digit first', '4 apples'],
    ['an opening bracket', '(555) 010'],
    ['an empty cell', ''],
  ])('leaves %s as it is', (_what, cell) => {
    expect(neutralizeFormula(cell)).toBe(cell);
  });

  it('never lets a cell start with a formula character once spreadsheets skip what they skip', () => {
    const seed = Date.now();
    console.log(`csv-row formula property seed: ${seed}`);
    const unit = fc.constantFrom(
      ...formulaCharacters,
      ' ',
      '\t',
      '\r',
      '\n',
      '\u0000',
      '\u00A0',
      '\u200B',
      '\u202E',
      '\uFEFF',
      'a',
      '1',
      "'",
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 8 }), (cell) => {
        const out = neutralizeFormula(cell);
        expect([cell, `'${cell}`]).toContain(out);
        const start = out.replace(skipped, '')[0] ?? '';
        expect(formulaCharacters).not.toContain(start);
        expect(/^\p{Cc}/u.test(out)).toBe(false);
      }),
      { seed, numRuns: 2000 },
    );
  });

  it('keeps amounts numeric (negative for debits, two decimals)', () => {
    const record = byColumn(
      toCsvRecord({
        id: 'tx_1',
        date: '2026-01-02T03:04:05.000Z',
        description: '=HYPERLINK("x")',
        amountCents: -1205,
        status: 'settled',
        referenceNumber: 'R1',
        originalCurrency: { code: 'EUR', amountCents: 1100, conversionRate: 1.0955 },
      }),
    );
    expect(record.description).toBe(`'=HYPERLINK("x")`);
    expect(record.amount).toBe('-12.05');
    expect([
      record['original currency'],
      record['original amount'],
      record['conversion rate'],
    ]).toEqual(['EUR', '11.00', '1.0955']);
  });

  it('leaves negative original amounts numeric too, while text starting with - is prefixed', () => {
    const record = byColumn(
      toCsvRecord({
        id: 'tx_2',
        date: '2026-01-02T03:04:05.000Z',
        description: '-5 refund',
        amountCents: -50,
        status: 'settled',
        referenceNumber: 'R2',
        originalCurrency: { code: 'EUR', amountCents: -46, conversionRate: 1.0955 },
      }),
    );
    expect(record.description).toBe("'-5 refund");
    expect(record.amount).toBe('-0.50');
    expect(record['original amount']).toBe('-0.46');
  });

  it('names the card and the merchant category beside their ids, each neutralized', () => {
    const labels = new Map([['card_1', { name: '=Ops travel', last4: '4242' }]]);
    const record = byColumn(
      toCsvRecord(
        {
          id: 'tx_3',
          date: '2026-01-02T03:04:05.000Z',
          description: 'Lunch',
          amountCents: -1_000,
          status: 'settled',
          referenceNumber: 'R3',
          cardId: 'card_1',
          merchantData: { description: 'Cafe', categoryCode: '5812' },
        },
        { times: createLocalTimes('UTC'), cards: { label: (id) => labels.get(id) } },
      ),
    );
    expect(record).toMatchObject({
      'card id': 'card_1',
      'card name': `'=Ops travel`,
      'card last 4': '4242',
      'category code': '5812',
      'category name': 'Eating places and Restaurants',
    });
  });

  it('leaves the name cells empty for a card or a category it cannot name', () => {
    const record = byColumn(
      toCsvRecord(
        {
          id: 'tx_4',
          date: '2026-01-02T03:04:05.000Z',
          description: 'Lunch',
          amountCents: -1_000,
          status: 'settled',
          referenceNumber: 'R4',
          cardId: 'card_unknown',
          merchantData: { description: 'Cafe', categoryCode: '0000' },
        },
        { times: createLocalTimes('UTC'), cards: { label: () => undefined } },
      ),
    );
    expect(record).toMatchObject({
      'card id': 'card_unknown',
      'card name': '',
      'card last 4': '',
      'category name': '',
    });
  });

  it("writes dates and authorization times in the person's zone with the offset, and names the zone", () => {
    const record = byColumn(
      toCsvRecord(
        {
          id: 'tx_5',
          date: '2026-11-03T14:14:05.000Z',
          authorizedAt: '2026-03-08T06:59:59.250Z',
          description: 'Taxi',
          amountCents: -2_000,
          status: 'settled',
          referenceNumber: 'R5',
        },
        { times: createLocalTimes('America/New_York') },
      ),
    );
    expect(record.date).toBe('2026-11-03T09:14:05-05:00');
    // One second before New York's clocks went forward: still standard time.
    expect(record['authorized at']).toBe('2026-03-08T01:59:59.250-05:00');
    expect(record['time zone']).toBe('America/New_York');
  });

  it('writes every time as a time, though its digits may read as a card number', () => {
    const times = createLocalTimes('America/New_York');
    // Times with milliseconds: from the hour on, 13 digits (17:14:05.123-04:00), a tenth of
    // which pass the Luhn check. Each is written whole, never masked.
    let luhnValid = 0;
    for (let ms = Date.UTC(2026, 9, 30, 20); ms < Date.UTC(2026, 9, 30, 21); ms += 997) {
      const at = new Date(ms).toISOString();
      const record = byColumn(
        toCsvRecord(
          {
            id: 't',
            description: 'Taxi',
            date: at,
            authorizedAt: at,
            amountCents: -1,
            status: 'settled',
            referenceNumber: 'R',
          },
          { times },
        ),
      );
      const local = times.format(at);
      if (isLuhnValid(local.slice(11).replace(/\D/g, ''))) luhnValid++;
      expect(record.date).toBe(local);
      expect(record['authorized at']).toBe(local);
    }
    expect(luhnValid).toBeGreaterThan(100);
  });

  it('masks a card number sent where a time belongs, and one in a fraction too long to be a time', () => {
    const times = createLocalTimes('America/New_York');
    const record = byColumn(
      toCsvRecord(
        {
          id: 't',
          description: 'Taxi',
          date: 'paid 4000 0012 3456 7899',
          authorizedAt: '2026-11-03T14:14:05.4000001234567899Z',
          amountCents: -1,
          status: 'settled',
          referenceNumber: 'R',
        },
        { times },
      ),
    );
    expect(record.date).toBe('paid •••• 7899');
    expect(record['authorized at']).toBe('2026-11-03T14:14:05.•••• 7899Z');
  });
});
