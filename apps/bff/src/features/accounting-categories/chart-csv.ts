// A chart of accounts as CSV, as people export it from their books: a header row naming a code
// column and a name column (QuickBooks Online's "Account #"/"Number" and "Account"/"Name",
// Xero's "*Code" and "*Name", or plainly "code" and "name"), other columns ignored.
import {
  type AccountingCategoryCreate,
  accountingCategoryCreateSchema,
  CHART_IMPORT_MAX_ROWS,
} from '@card-console/shared/api/accounting-categories';
import { parse } from 'csv-parse/sync';
import { AppError } from '../../core/app-error';

const CODE_HEADERS = [
  'code',
  'account code',
  'account number',
  'account #',
  'number',
  'acct #',
  'acct no',
];
const NAME_HEADERS = ['name', 'account name', 'account', 'category'];
/** How many of a file's problems its 400 lists. */
const PROBLEMS_SHOWN = 10;

const header = (cell: string) => cell.trim().replace(/^\*/, '').trim().toLowerCase();

/**
 * What a text that was not UTF-8 leaves behind: U+FFFD where the BFF's UTF-8 decoding met a byte
 * it could not read (Excel's "CSV" on Windows is Windows-1252, so "Café" arrives as "Caf\uFFFD"),
 * NUL from a UTF-16 file. Imported, the replacement characters would become part of the names.
 */
function firstUndecoded(text: string): number | undefined {
  const at = ['\uFFFD', '\u0000'].map((c) => text.indexOf(c)).filter((i) => i >= 0);
  return at.length > 0 ? Math.min(...at) : undefined;
}

/** Physical line breaks as a file may end its lines: Windows', Unix's or old Mac's. */
const lineBreak = /\r\n?|\n/g;

/** The file's 1-based line that `index` (of `text`) falls on. */
const lineAt = (text: string, index: number) =>
  (text.slice(0, index).match(lineBreak)?.length ?? 0) + 1;

/** What went wrong with a row's field, said of the field: "code is missing", "name must not be empty". */
function fieldProblem(field: string, value: string, message: string | undefined): string {
  if (value.trim() === '') return `${field} is missing`;
  // The shared schema's messages are either a predicate ("must not …") or an instruction ("use …").
  return message?.startsWith('must ')
    ? `${field} ${message}`
    : `${field} is not valid${message ? ` (${message})` : ''}`;
}

interface Row {
  cells: string[];
  /** The file's own line the row starts on, blank lines and lines inside quoted fields counted. */
  line: number;
}

function rowsOf(text: string): Row[] {
  // One line break: csv-parse counts a CRLF inside a quoted field as two lines. Nothing the file
  // means is lost: a line break is not allowed in a code or a name.
  const normalized = text.replace(/^\uFEFF/, '').replace(lineBreak, '\n');
  let parsed: { record: string[]; raw: string; info: { lines: number } }[];
  try {
    parsed = parse(normalized, {
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      info: true,
      raw: true,
    }) as unknown as typeof parsed; // csv-parse's types leave out what `info` and `raw` add.
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new AppError(
      400,
      'invalid_body',
      `The file is not readable as CSV${line ? ` (line ${line})` : ''}. Export the chart of accounts as CSV and try again.`,
    );
  }
  // `info.lines` is the line a row ends on; `raw`, trimmed of the blank lines skipped before it
  // and of its own line break, holds the breaks inside its quoted fields.
  return parsed.map(({ record, raw, info }) => ({
    cells: record,
    line: info.lines - (raw.trim().match(/\n/g)?.length ?? 0),
  }));
}

/** The file's categories, each checked; a 400 naming the lines at fault otherwise (nothing saved). */
export function chartFromCsv(text: string): AccountingCategoryCreate[] {
  const unreadable = firstUndecoded(text);
  if (unreadable !== undefined) {
    throw new AppError(
      400,
      'invalid_body',
      `Nothing was imported: the file is not UTF-8 text (line ${lineAt(text, unreadable)} has characters that could not be read). In Excel, save it as "CSV UTF-8 (Comma delimited)" and import that file.`,
    );
  }
  const [head, ...rows] = rowsOf(text);
  const names = (head?.cells ?? []).map(header);
  const codeAt = names.findIndex((n) => CODE_HEADERS.includes(n));
  const nameAt = names.findIndex((n) => NAME_HEADERS.includes(n));
  if (codeAt < 0 || nameAt < 0) {
    throw new AppError(
      400,
      'invalid_body',
      'The first line must name the columns, with one for the account code ("Code", "Account #" or "Number") and one for its name ("Name" or "Account").',
    );
  }
  if (rows.length === 0) throw new AppError(400, 'invalid_body', 'The file has no accounts.');
  if (rows.length > CHART_IMPORT_MAX_ROWS) {
    throw new AppError(
      400,
      'invalid_body',
      `The file has ${rows.length} accounts; import at most ${CHART_IMPORT_MAX_ROWS} at once.`,
    );
  }
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const chart: AccountingCategoryCreate[] = [];
  for (const { cells, line } of rows) {
    const fields = { code: cells[codeAt] ?? '', name: cells[nameAt] ?? '' };
    const parsed = accountingCategoryCreateSchema.safeParse(fields);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path[0] === 'name' ? 'name' : 'code';
      problems.push(`line ${line}: ${fieldProblem(field, fields[field], issue?.message)}`);
      continue;
    }
    const key = parsed.data.code.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) {
      problems.push(`line ${line}: code ${parsed.data.code} is also on line ${first}`);
      continue;
    }
    seen.set(key, line);
    chart.push(parsed.data);
  }
  if (problems.length > 0) {
    const more =
      problems.length > PROBLEMS_SHOWN ? ` (and ${problems.length - PROBLEMS_SHOWN} more)` : '';
    throw new AppError(
      400,
      'invalid_body',
      `Nothing was imported: ${problems.slice(0, PROBLEMS_SHOWN).join('; ')}${more}.`,
    );
  }
  return chart;
}
