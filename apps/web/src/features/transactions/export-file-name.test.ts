import { create } from 'content-disposition';
import { describe, expect, it } from 'vitest';
import { dispositionFileName, exportFileName } from './export-file-name';

describe('export file name', () => {
  it("is the server's: the UTF-8 name first, reduced to a plain name", () => {
    const header = create('opérations_2026-11-01_2026-11-21.csv', {
      fallback: 'operations_2026-11-01_2026-11-21.csv',
    });
    expect(dispositionFileName(header)).toBe('opérations_2026-11-01_2026-11-21.csv');
    expect(dispositionFileName('attachment; filename="plain.csv"')).toBe('plain.csv');
    expect(dispositionFileName('attachment; filename="../../etc/x.csv"')).toBe('x.csv');
    expect(dispositionFileName('attachment; filename="a\\\\b.csv"')).toBe('b.csv');
    expect(dispositionFileName('attachment')).toBeUndefined();
    expect(dispositionFileName('attachment; filename=".."')).toBeUndefined();
    expect(dispositionFileName(null)).toBeUndefined();
    expect(dispositionFileName('attachment; filename="unclosed')).toBeUndefined();
  });

  it('is made as the server makes it when the server gives none', () => {
    const today = '2026-11-24';
    expect(exportFileName('Operations', { from: '2026-11-01', to: '2026-11-21', today })).toBe(
      'operations_2026-11-01_2026-11-21.csv',
    );
    expect(exportFileName('Travel & Events', { to: '2026-11-21', today })).toBe(
      'travel-events_until_2026-11-21.csv',
    );
    expect(exportFileName('Crème brûlée', { from: '2026-11-01', today })).toBe(
      'creme-brulee_2026-11-01_2026-11-24.csv',
    );
    expect(exportFileName('営業', { today })).toBe('transactions_until_2026-11-24.csv');
    expect(exportFileName('x'.repeat(100), { today })).toBe(`${'x'.repeat(60)}_until_${today}.csv`);
  });
});
