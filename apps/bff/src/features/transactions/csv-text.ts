/**
 * CSV text for records of strings, as RFC 4180 with CRLF line ends: a field holding a quote,
 * a comma, CR or LF is quoted, its quotes doubled. A semicolon or a tab is quoted too: a
 * spreadsheet in a locale whose list separator is the semicolon (German, French) splits an
 * unquoted `SHOP;=HYPERLINK(…)` in two and reads the second cell as a formula, where the check
 * against formulas (csv-row.ts) looks at a field's first character. The same output as
 * csv-stringify with `record_delimiter: 'windows', quote_record_delimiter: true, quoted_match:
 * /[;\t]/` (a property test holds the two together), without its per-call option handling and
 * per-field checks, which an export pays 100,000 times.
 */
const needsQuotes = /[",;\t\r\n]/;

function field(value: string): string {
  return needsQuotes.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Records as CSV lines, each ending in CRLF (an empty list is an empty string). */
export function csvLines(records: readonly (readonly string[])[]): string {
  let out = '';
  for (const record of records) {
    for (let i = 0; i < record.length; i++) {
      if (i > 0) out += ',';
      out += field(record[i] as string);
    }
    out += '\r\n';
  }
  return out;
}
