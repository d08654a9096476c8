import { type ReactNode, useId, useState } from 'react';

/**
 * A chart with its heading, and a button that shows the same numbers as a table instead: the
 * table is what a screen reader or a keyboard reads best, the chart what an eye reads fastest.
 */
export function ChartFrame({
  title,
  note,
  chart,
  table,
}: {
  title: string;
  /** A line under the heading: what the chart's links can and cannot show. */
  note?: ReactNode;
  chart: ReactNode;
  table: ReactNode;
}) {
  const [asTable, setAsTable] = useState(false);
  const headingId = useId();
  return (
    <section className="overview-chart" aria-labelledby={headingId}>
      <div className="overview-chart-header">
        <h2 id={headingId}>{title}</h2>
        {/* The label says what a press does; a toggle's aria-pressed would need a label that stays. */}
        <button type="button" onClick={() => setAsTable(!asTable)}>
          {asTable ? 'Show as chart' : 'Show as table'}
        </button>
      </div>
      {note ? <p className="muted overview-chart-note">{note}</p> : null}
      {asTable ? table : chart}
    </section>
  );
}

const shortDay = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});
const shortDayWithYear = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A bare calendar day as "Nov 3" (with the year when asked). */
export function formatShortDay(day: string, withYear = false): string {
  return (withYear ? shortDayWithYear : shortDay).format(Date.parse(`${day}T00:00:00Z`));
}

export const formatCount = (n: number) => n.toLocaleString('en-US');
