import { localTimeZone } from '@card-console/shared/dates';
import { useId, useState } from 'react';
import { isApiError } from '../lib/api-error';
import { EXPORT_INTERRUPTED } from '../lib/download-csv';

/** Failures whose sentence is shown as it is: it tells the person what to do. */
const SAYS_IT_ALL = new Set<string>([EXPORT_INTERRUPTED, 'receipts_zip_too_large']);

interface ExportCsvButtonProps {
  /** Downloads the file, its times in the person's zone `tz`; nothing to call, nothing done. */
  download: ((tz: string) => Promise<void>) | undefined;
  /** Why there is nothing to export, if so. */
  blocked: string | undefined;
  /** What the button says; "Export CSV" unless told. */
  label?: string;
  /** What the button's name adds for assistive technology ("in QuickBooks Online's format"). */
  description?: string;
}

/**
 * "Export CSV". Busy, not disabled, while it runs, and when there is nothing to export
 * (aria-disabled): a disabled button would drop the focus to the page and could not say why
 * it does nothing.
 */
export function ExportCsvButton(props: ExportCsvButtonProps) {
  const { download, blocked, label = 'Export CSV' } = props;
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | undefined>();
  const reasonId = useId();
  const aboutId = useId();

  const onExport = async () => {
    if (!download || blocked || exporting) return;
    setExporting(true);
    setExportError(undefined);
    try {
      await download(localTimeZone());
    } catch (error) {
      // An interrupted download's sentence, and a ZIP's refusal (its counts, asking to narrow
      // the period), say it all; other failures say what went wrong.
      if (isApiError(error) && SAYS_IT_ALL.has(error.code)) setExportError(error.message);
      else setExportError(`Export failed: ${error instanceof Error ? error.message : 'unknown'}`);
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <button
        type="button"
        onClick={onExport}
        aria-disabled={exporting || blocked !== undefined || undefined}
        title={blocked ?? props.description}
        aria-describedby={
          [blocked ? reasonId : '', props.description ? aboutId : ''].filter(Boolean).join(' ') ||
          undefined
        }
      >
        {exporting ? 'Exporting…' : label}
      </button>
      {props.description ? (
        <span id={aboutId} className="visually-hidden">
          {props.description}
        </span>
      ) : null}
      {blocked ? (
        <span id={reasonId} className="visually-hidden">
          {blocked}
        </span>
      ) : null}
      {exportError ? (
        <p className="form-error export-error" role="alert">
          {exportError}
        </p>
      ) : null}
    </>
  );
}
