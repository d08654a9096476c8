import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvLines } from './csv-text';

const cell = fc.oneof(
  fc.string(),
  fc.string({ unit: fc.constantFrom('a', '"', ',', '\r', '\n', ' ', "'", '=', 'é', '\t', ';') }),
);

describe('CSV text', () => {
  // csv-stringify given `record_delimiter` quotes only a field holding the whole CRLF; a lone
  // CR or LF left bare breaks the row in spreadsheets, so here (as RFC 4180 asks) it is quoted.
  it('writes exactly what csv-stringify writes with CRLF line ends and line breaks quoted', () => {
    const seed = Date.now();
    console.log(`csv-text property seed: ${seed}`);
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { maxLength: 5 }),
        (rows) => {
          expect(csvLines(rows)).toBe(
            stringify(rows, {
              record_delimiter: 'windows',
              quote_record_delimiter: true,
              quoted_match: /[;\t]/,
            }),
          );
        },
      ),
      { seed, numRuns: 500 },
    );
  });

  it('quotes a field holding a semicolon or a tab, so no spreadsheet splits it into a formula', () => {
    expect(csvLines([['SHOP;=HYPERLINK("x")', 'a\tb', 'plain']])).toBe(
      '"SHOP;=HYPERLINK(""x"")","a\tb",plain\r\n',
    );
  });

  it('quotes a field holding a quote, comma or line break, doubling its quotes', () => {
    expect(csvLines([['a"b', 'c,d', 'e\nf', 'g\rh', 'plain', '']])).toBe(
      '"a""b","c,d","e\nf","g\rh",plain,\r\n',
    );
  });
});
