import { type FormEvent, useId, useRef, useState } from 'react';
import { useImportAccountingCategories } from '../api/import-accounting-categories';

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The file's text, or undefined when it is not UTF-8 (Excel's plain "CSV" on Windows is
 * Windows-1252): `file.text()` would put U+FFFD in place of every "é". A byte order mark is
 * dropped, as the BFF drops it.
 */
function utf8(bytes: ArrayBuffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * "Import from CSV": a chart of accounts as QuickBooks Online or Xero export it (or any CSV
 * with a code and a name column), read in the browser as UTF-8 and sent as it is (a file in
 * another encoding is refused before sending). All of it is imported or nothing: a file with
 * faulty lines is refused with the lines named.
 */
export function ChartImport({ onResult }: { onResult: (message: string) => void }) {
  const importChart = useImportAccountingCategories();
  const [file, setFile] = useState<File>();
  const [error, setError] = useState<string>();
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  const busy = importChart.isPending;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (!file) {
      setError('Choose a CSV file first.');
      input.current?.focus();
      return;
    }
    setError(undefined);
    let bytes: ArrayBuffer;
    try {
      bytes = await file.arrayBuffer();
    } catch {
      setError(`${file.name} could not be read. Choose it again.`);
      return;
    }
    const text = utf8(bytes);
    if (text === undefined) {
      // Said here, before sending: the BFF refuses it too, for any client.
      setError(
        `${file.name} is not UTF-8 text, so its accented letters would be lost. In Excel, save it as “CSV UTF-8 (Comma delimited)” and choose that file.`,
      );
      input.current?.focus();
      return;
    }
    importChart.mutate(text, {
      onSuccess: (result) => {
        onResult(
          `Imported ${file.name}: ${count(result.created)} added, ${count(result.renamed)} renamed, ${count(result.unchanged)} unchanged.`,
        );
        setFile(undefined);
        if (input.current) input.current.value = '';
      },
      onError: (failed) => {
        setError(failed.message);
        input.current?.focus();
      },
    });
  };

  return (
    <form className="chart-import" aria-labelledby={`${id}-title`} onSubmit={(e) => void submit(e)}>
      <h2 id={`${id}-title`}>Import from CSV</h2>
      <p className="muted" id={`${id}-hint`}>
        A chart of accounts exported as CSV: QuickBooks Online (Account #, Account), Xero (*Code,
        *Name), or any file whose first line names a Code and a Name column. New codes are added; a
        code already here takes the file’s name. Nothing is archived.
      </p>
      <div className="chart-import-row">
        <div className="field">
          <label htmlFor={id}>Chart of accounts file</label>
          <input
            ref={input}
            id={id}
            type="file"
            accept=".csv,text/csv"
            aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
            {...(error ? { 'aria-invalid': true } : {})}
            onChange={(e) => {
              setFile(e.target.files?.[0]);
              setError(undefined);
            }}
          />
        </div>
        <button type="submit" className="primary" aria-disabled={busy || undefined}>
          {busy ? 'Importing…' : 'Import'}
        </button>
      </div>
      {error ? (
        <p id={`${id}-error`} className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}
