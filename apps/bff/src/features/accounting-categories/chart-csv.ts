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

/** The file's categories, each checked; a 400 naming the lines at fault otherwise (nothing saved). */
export function chartFromCsv(text: string): AccountingCategoryCreate[] {
  let records: string[][];
  try {
    records = parse(text.replace(/^\uFEFF/, ''), {
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
    }) as string[][];
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new AppError(
      400,
      'invalid_body',
      `The file is not readable as CSV${line ? ` (line ${line})` : ''}. Export the chart of accounts as CSV and try again.`,
    );
  }
  const [head, ...rows] = records;
  const names = (head ?? []).map(header);
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
  rows.forEach((row, i) => {
    const line = i + 2;
    const parsed = accountingCategoryCreateSchema.safeParse({
      code: row[codeAt] ?? '',
      name: row[nameAt] ?? '',
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problems.push(`line ${line}: ${issue?.path.join('.')} ${issue?.message}`);
      return;
    }
    const key = parsed.data.code.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) {
      problems.push(`line ${line}: code ${parsed.data.code} is also on line ${first}`);
      return;
    }
    seen.set(key, line);
    chart.push(parsed.data);
  });
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
