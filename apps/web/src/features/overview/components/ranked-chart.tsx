import { Link } from '@tanstack/react-router';
import { scaleLinear } from 'd3-scale';
import type { TransactionsSearch } from '../../transactions';
import { ChartFrame } from './chart-frame';

export interface RankedRow {
  key: string;
  label: string;
  /** What the bar's length shows. */
  value: number;
  /** The row's numbers as text, one per column after the name; the first is beside the bar. */
  cells: string[];
  /** The link's accessible name: the row in words. */
  name: string;
  search: TransactionsSearch;
}

/**
 * A ranked list as horizontal bars, largest first: each row is one link (its name, a bar,
 * its number) to the transactions behind it. HTML rows with a bar drawn in each, so names wrap
 * on a narrow window instead of shrinking with a drawing.
 */
export function RankedChart({
  title,
  note,
  linkTitle,
  columns,
  rows,
  empty,
}: {
  title: string;
  note?: string | undefined;
  /** The links' tooltip: what they open when it is less than the row. */
  linkTitle?: string | undefined;
  /** The table's column headers: the name's, then one per cell. */
  columns: string[];
  rows: RankedRow[];
  empty: string;
}) {
  const x = scaleLinear()
    .domain([0, Math.max(1, ...rows.map((r) => r.value))])
    .range([0, 100]);
  if (rows.length === 0) {
    return (
      <section className="overview-chart" aria-label={title}>
        <h2>{title}</h2>
        <p className="empty">{empty}</p>
      </section>
    );
  }
  return (
    <ChartFrame
      title={title}
      note={note}
      chart={
        <ol className="ranked-chart">
          {rows.map((row) => (
            <li key={row.key}>
              <Link to="/transactions" search={row.search} aria-label={row.name} title={linkTitle}>
                <span className="ranked-label">{keepMaskWhole(row.label)}</span>
                <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
                  <rect
                    className="bar"
                    x={0}
                    y={0}
                    height={10}
                    width={Math.max(0.5, x(row.value))}
                  />
                </svg>
              </Link>
              {/* Beside the link, not in it: the link's visible text stays the start of its name. */}
              <span className="ranked-value">{row.cells[0]}</span>
            </li>
          ))}
        </ol>
      }
      table={
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                {columns.map((c, i) => (
                  <th key={c} scope="col" className={i ? 'num' : undefined}>
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.key}>
                  <th scope="row">
                    <Link
                      to="/transactions"
                      search={row.search}
                      aria-label={row.name}
                      title={linkTitle}
                    >
                      {row.label}
                    </Link>
                  </th>
                  {row.cells.map((cell, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed
                    <td key={i} className="num">
                      {cell}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      }
    />
  );
}

/** A card's "•••• 6707" kept on one line: the name wraps before it, never inside it. */
function keepMaskWhole(label: string): string {
  return label.replace(/(•+) (\d{4})/gu, '$1\u00a0$2');
}
