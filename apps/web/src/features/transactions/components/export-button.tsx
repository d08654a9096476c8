import type { ExportFormat, IndexQuery } from '@card-console/shared/api/transaction-index';
import { instantToIsoDay } from '@card-console/shared/dates';
import { ACCOUNTING_ROWS_PER_FILE } from '@card-console/shared/index-vocabulary';
import { formatCents } from '@card-console/shared/money';
import { postedWords } from '@card-console/shared/money-definition';
import { useQueryClient } from '@tanstack/react-query';
import { type SyntheticEvent, useState } from 'react';
import { ExportCsvButton } from '../../../components/export-csv-button';
import { ApiError } from '../../../lib/api-error';
import { downloadReceiptsZip } from '../api/download-receipts-zip';
import { exportTransactionsCsv } from '../api/export-transactions-csv';
import { indexListsKey } from '../api/get-index-transactions';
import { exportFileName } from '../export-file-name';

interface ExportButtonProps {
  /** The list's query: the file holds exactly its rows, in its order. */
  query: IndexQuery;
  /** The days shown, which name the file. */
  days: { from?: string | undefined; to?: string | undefined };
  /** Names the file when the server does not: the sub account's, or none for all of them. */
  subAccountName: string | undefined;
  /** Why there is nothing to export, if so. */
  blocked: string | undefined;
  /** The list's posted rows (its summary's): what the accounting files hold and net to. */
  posted: { count: number; cents: number } | undefined;
}

type Format = Exclude<ExportFormat, 'card-console'>;

/**
 * The accounting files, each of the posted rows only, and what each is for. QuickBooks
 * Online's bank upload takes no category: its journal-entry import does.
 */
const ACCOUNTING: { format: Format; label: string; description: string }[] = [
  {
    format: 'quickbooks-journal',
    label: 'QuickBooks journal entries',
    description:
      "For QuickBooks Online's Import data, Journal entries: each posted row booked to its accounting category, with its memo, card and id.",
  },
  {
    format: 'quickbooks',
    label: 'QuickBooks bank CSV',
    description:
      "For QuickBooks Online's bank upload (Date, Description, Amount): no category, you categorise on its For Review tab.",
  },
  {
    format: 'xero',
    label: 'Xero CSV (precoded)',
    description:
      "For Xero's Import a statement: each posted row with its account code, memo, card and id.",
  },
];

/**
 * "Export CSV" of exactly the list shown, its dates in the person's zone; beside it the
 * accounting files of its posted rows (QuickBooks Online's journal entries and bank upload,
 * Xero's precoded statement) with the posted total they net to, and the receipts as one ZIP.
 */
export function ExportButton({ query, days, subAccountName, blocked, posted }: ExportButtonProps) {
  const { cursor: _c, limit: _l, refresh: _r, ...filter } = query;
  const queryClient = useQueryClient();
  // Why the parts offered are no longer the posted rows' (409 `matching_changed`), until the next.
  const [changed, setChanged] = useState<string | undefined>();
  // The panel opens from the button's right edge, or from its left where that would leave the
  // screen (the title row wrapped, "More formats" at its left: its lines were cut).
  const [fromLeft, setFromLeft] = useState(false);
  const keepInView = (event: SyntheticEvent<HTMLDetailsElement>) => {
    const details = event.currentTarget;
    if (!details.open) return;
    const panel = details.querySelector('.export-more-panel')?.getBoundingClientRect();
    if (!panel) return;
    if (!fromLeft && panel.left < 0) setFromLeft(true);
    if (fromLeft && panel.right > document.documentElement.clientWidth) setFromLeft(false);
  };
  const download = (format: Format | undefined, part?: number) => async (tz: string) => {
    // A part carries the posted set it was planned from: the BFF refuses it if that changed.
    const planned = part === undefined ? undefined : posted;
    if (planned) setChanged(undefined);
    try {
      await exportTransactionsCsv(
        { ...filter, tz, fromDay: days.from, toDay: days.to, format, part, planned },
        exportFileName(`${subAccountName ?? 'all sub accounts'}${format ? ` ${format}` : ''}`, {
          from: days.from,
          to: days.to,
          today: instantToIsoDay(Date.now(), tz),
        }),
      );
    } catch (error) {
      if (!(planned && error instanceof ApiError && error.code === 'matching_changed')) throw error;
      // Said once, beside the figures, which are asked again: the parts are offered anew.
      setChanged(error.message);
      await queryClient.invalidateQueries({ queryKey: [...indexListsKey, 'totals'] });
    }
  };
  const receipts = (tz: string) =>
    downloadReceiptsZip(
      { ...filter, tz, fromDay: days.from, toDay: days.to },
      exportFileName('receipts', {
        from: days.from,
        to: days.to,
        today: instantToIsoDay(Date.now(), tz),
      }).replace(/\.csv$/, '.zip'),
    );
  return (
    <div className="export-buttons">
      <ExportCsvButton download={download(undefined)} blocked={blocked} />
      {/* The accountant's files and the receipts behind one disclosure: four buttons beside
          the month close's presets took the title row to two lines at 1280 px. */}
      <details className="menu-disclosure export-more" onToggle={keepInView}>
        <summary>More formats</summary>
        <div className={`menu-disclosure-panel export-more-panel${fromLeft ? ' from-left' : ''}`}>
          <PostedTotal posted={posted} />
          {changed ? (
            <p className="form-error export-error" role="alert">
              {changed}
            </p>
          ) : null}
          {ACCOUNTING.map((a) => (
            <div key={a.format} className="export-file">
              {partsOf(a.format, posted?.count ?? 0).map((part) => (
                <ExportCsvButton
                  key={part.label}
                  download={download(a.format, part.part)}
                  blocked={blocked ?? (posted?.count === 0 ? NOTHING_POSTED : undefined)}
                  label={`${a.label}${part.label}`}
                  description={`${a.description}${part.label}`}
                />
              ))}
              <span className="export-file-use" aria-hidden="true">
                {a.description}
              </span>
            </div>
          ))}
          <ExportCsvButton
            download={receipts}
            blocked={blocked}
            label="Download receipts (ZIP)"
            description="The receipts attached to these transactions, as one ZIP file."
          />
        </div>
      </details>
    </div>
  );
}

const NOTHING_POSTED =
  'Nothing to export: none of these transactions posted (an accounting file holds posted rows only).';

/**
 * The files of a format for `count` posted rows: one, or past its importer's limit
 * (`ACCOUNTING_ROWS_PER_FILE`) one part per that many rows, named by the rows each holds.
 */
function partsOf(format: Format, count: number): { part?: number; label: string }[] {
  const limit = ACCOUNTING_ROWS_PER_FILE[format];
  if (limit === undefined || count <= limit) return [{ label: '' }];
  const parts = Math.ceil(count / limit);
  const rows = (n: number) => n.toLocaleString('en-US');
  return Array.from({ length: parts }, (_, i) => ({
    part: i + 1,
    label: `, part ${i + 1} of ${parts} (rows ${rows(i * limit + 1)}–${rows(Math.min(count, (i + 1) * limit))})`,
  }));
}

const IMPORTER_NAMES: Partial<Record<Format, string>> = {
  quickbooks: "QuickBooks' bank upload",
  xero: 'Xero',
};

/** The posted total the files net to, beside them, and a note past an importer's limit. */
function PostedTotal({ posted }: { posted: ExportButtonProps['posted'] }) {
  if (!posted) return null;
  const over = Object.entries(ACCOUNTING_ROWS_PER_FILE).filter(
    ([, rows]) => rows !== undefined && posted.count > rows,
  );
  return (
    <div className="export-posted">
      <p>
        <strong>Posted: {formatCents(posted.cents)}</strong> in{' '}
        {posted.count.toLocaleString('en-US')} {posted.count === 1 ? 'row' : 'rows'}
      </p>
      <p className="export-posted-about">
        The accounting files hold these rows only and net to this total. {postedWords}
      </p>
      {over.length > 0 ? (
        <p className="export-posted-limit" role="note">
          {over
            .map(
              ([format, rows]) =>
                `${IMPORTER_NAMES[format as Format]} takes ${rows?.toLocaleString('en-US')}`,
            )
            .join(', ')}{' '}
          rows a file at most: its file comes in parts, to import one after the other.
        </p>
      ) : null}
    </div>
  );
}
