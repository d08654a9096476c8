import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportContentDisposition, exportDays } from './export-file-name';

const days = { fromDay: '2026-11-01', toDay: '2026-11-21' };
const header = (subAccountName: string | undefined) =>
  exportContentDisposition({ subAccountName, ...days });

/** The header's two names, `filename*` decoded (RFC 8187). */
function names(value: string): { filename?: string; 'filename*'?: string } {
  const m = /^attachment; filename=([^;"]+)(?:; filename\*=UTF-8''([^;]+))?$/.exec(value);
  if (!m) throw new Error(`not an attachment with a plain file name: ${value}`);
  return m[2] === undefined
    ? { filename: m[1] }
    : { filename: m[1], 'filename*': decodeURIComponent(m[2]) };
}

describe('the export file name', () => {
  it.each([
    ['Operations', 'attachment; filename=operations_2026-11-01_2026-11-21.csv'],
    ['  Marketing EMEA  ', 'attachment; filename=marketing-emea_2026-11-01_2026-11-21.csv'],
    ['../../etc/passwd', 'attachment; filename=etc-passwd_2026-11-01_2026-11-21.csv'],
    [
      'C:\\Temp\\x"; filename=evil.exe',
      'attachment; filename=c-temp-x-filename-evil-exe_2026-11-01_2026-11-21.csv',
    ],
    ['Ops\r\nSet-Cookie: a=b', 'attachment; filename=ops-set-cookie-a-b_2026-11-01_2026-11-21.csv'],
    [undefined, 'attachment; filename=transactions_2026-11-01_2026-11-21.csv'],
    ['***', 'attachment; filename=transactions_2026-11-01_2026-11-21.csv'],
  ])('%j → %s', (name, expected) => {
    expect(header(name)).toBe(expected);
  });

  it('keeps other letters in filename* and gives plain ASCII in filename', () => {
    expect(names(header('Équipe Zürich'))).toEqual({
      filename: 'equipe-zurich_2026-11-01_2026-11-21.csv',
      'filename*': 'équipe-zürich_2026-11-01_2026-11-21.csv',
    });
    // A name with no ASCII letter at all: a plain fallback beside the real one.
    expect(names(header('東京支社'))).toEqual({
      filename: 'transactions_2026-11-01_2026-11-21.csv',
      'filename*': '東京支社_2026-11-01_2026-11-21.csv',
    });
  });

  it('drops text-direction controls and invisible characters rather than carrying them', () => {
    expect(names(header('Payroll\u202Eexe.fdp\u200B'))).toEqual({
      filename: 'payroll-exe-fdp_2026-11-01_2026-11-21.csv',
    });
  });

  it('cuts a long name to 60 characters', () => {
    expect(names(header('x'.repeat(100))).filename).toBe(
      `${'x'.repeat(60)}_2026-11-01_2026-11-21.csv`,
    );
  });

  it('says "until" when the export has no lower bound', () => {
    expect(exportContentDisposition({ subAccountName: 'Ops', toDay: '2026-11-21' })).toBe(
      'attachment; filename=ops_until_2026-11-21.csv',
    );
  });

  it('is always a header a client reads back as a safe file name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 120 }), (name) => {
        const value = header(name);
        // Only visible ASCII in the header itself (filename* is percent-encoded).
        expect(value).toMatch(/^[\x20-\x7e]+$/);
        const parameters = names(value);
        for (const file of [parameters.filename, parameters['filename*']]) {
          if (file === undefined) continue;
          expect(file).toMatch(/_2026-11-01_2026-11-21\.csv$/);
          expect(file).not.toMatch(/[/\\:*?"<>|\p{Cc}\p{Cf}]/u);
          expect(file.startsWith('.')).toBe(false);
        }
        expect(parameters.filename).toMatch(/^[a-z0-9-]+_/);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the days a file is named after', () => {
  const now = Date.parse('2026-11-24T03:00:00.000Z');

  it("are the bounds' days in the zone, the export's day with no upper bound", () => {
    const from = Date.parse('2026-11-01T04:00:00.000Z'); // midnight in New York
    const to = Date.parse('2026-11-22T04:59:59.999Z'); // 21 November, 23:59:59.999 there
    expect(exportDays({ from, to }, { zone: 'America/New_York', now })).toEqual({
      fromDay: '2026-11-01',
      toDay: '2026-11-21',
    });
    expect(exportDays({ from, to }, { zone: 'UTC', now })).toEqual({
      fromDay: '2026-11-01',
      toDay: '2026-11-22',
    });
    // Late on the 23rd in New York is the 24th in UTC.
    expect(exportDays({}, { zone: 'America/New_York', now })).toEqual({ toDay: '2026-11-23' });
  });

  it('are the given days when the person gives them', () => {
    expect(
      exportDays(
        { from: 0, to: now },
        { zone: 'UTC', now, fromDay: '2026-10-01', toDay: '2026-10-31' },
      ),
    ).toEqual({ fromDay: '2026-10-01', toDay: '2026-10-31' });
  });
});
