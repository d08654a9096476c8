import { fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VIRTUALIZE_AFTER, VirtualTable } from './virtual-table';

interface Row {
  id: string;
  label: string;
}
const rows = (n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({ id: `r${i}`, label: `Row ${i}` }));

function Table({ data }: { data: Row[] }) {
  return (
    <VirtualTable
      label="Things"
      columns={1}
      rows={data}
      rowKey={(r) => r.id}
      head={
        <tr>
          <th scope="col">Label</th>
        </tr>
      }
      renderRow={(r) => (
        <tr>
          <td>{r.label}</td>
        </tr>
      )}
    />
  );
}

// jsdom does no layout: give the scroll container a viewport of 600 px.
const sizes = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth'] as const;
beforeEach(() => {
  for (const key of sizes) {
    Object.defineProperty(HTMLElement.prototype, key, { configurable: true, get: () => 600 });
  }
});
afterEach(() => {
  for (const key of sizes) Reflect.deleteProperty(HTMLElement.prototype, key);
});

describe('virtual table', () => {
  it('renders short tables whole', () => {
    render(<Table data={rows(VIRTUALIZE_AFTER)} />);
    expect(screen.getAllByRole('row')).toHaveLength(VIRTUALIZE_AFTER + 1);
  });

  it('keeps ≤ 100 row elements in the DOM with 10,000 rows loaded, and follows scrolling', () => {
    render(<Table data={rows(10_000)} />);
    const rendered = screen.getAllByRole('row').length;
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThanOrEqual(100);
    expect(screen.getByText('Row 0')).toBeInTheDocument();
    expect(screen.queryByText('Row 5000')).not.toBeInTheDocument();
    expect(screen.getByRole('table', { name: 'Things' })).toHaveAttribute('aria-rowcount', '10001');

    const region = screen.getByRole('region', { name: 'Things table' });
    region.scrollTop = 5000 * 44;
    fireEvent.scroll(region);
    expect(screen.getByText('Row 5000')).toBeInTheDocument();
    expect(screen.queryByText('Row 0')).not.toBeInTheDocument();
    expect(screen.getAllByRole('row').length).toBeLessThanOrEqual(100);
  });
});
