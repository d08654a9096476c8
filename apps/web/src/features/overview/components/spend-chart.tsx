import type { Overview } from '@card-console/shared/api/overview';
import { formatCents } from '@card-console/shared/money';
import { Link } from '@tanstack/react-router';
import { scaleBand, scaleLinear } from 'd3-scale';
import { line } from 'd3-shape';
import { bucketSearch, type DrillScope } from '../drill-down';
import { ChartFrame, formatCount, formatShortDay } from './chart-frame';
import { useMeasuredWidth } from './use-measured-width';

type Point = Overview['series'][number];

/**
 * Drawn in CSS pixels at the width its box measures (no scaling viewBox), so its text stays at
 * the stylesheet's size on a phone and on a desktop alike. WIDTH only until measured.
 */
const WIDTH = 640;
const HEIGHT = 220;
const MARGIN = { top: 10, right: 8, bottom: 26, left: 52 };
/** The axis's least top, in cents: below $10 its ticks would be cents, or fractions of one. */
const LEAST_TOP = 1_000;

const compactDollars = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
});

/** A bucket as people say it: "Nov 3", or "Week of Nov 3" (with the year when asked). */
const bucketName = (day: string, granularity: Overview['granularity'], withYear = false) =>
  `${granularity === 'week' ? 'Week of ' : ''}${formatShortDay(day, withYear)}`;

/**
 * A bucket's height: its card spend, or nothing when more came back than was spent (a refund
 * of an earlier charge); the table says the figure itself.
 */
const drawn = (point: Point) => Math.max(point.cardSpendCents, 0);

/** No card spend in either period: an axis of zeros would say nothing. */
const noSpend = ({ series, previousSeries }: Overview) =>
  ![...series, ...(previousSeries ?? [])].some((point) => drawn(point) > 0);

interface Bucket {
  point: Point;
  previous: Point | undefined;
  /** The bar's name: "Mar 2: $10.00 card spend, previous period $4.00". */
  label: string;
  /** The table row's, holding the row's visible date with its year. */
  rowLabel: string;
}

/**
 * Card spend (charges less refunds, `netCardSpendWords`) per day (or week) as bars, the period before as a line over the same positions: the
 * nth bucket beside the previous period's nth. Every bar opens that day's (week's) transactions.
 */
export function SpendChart({ overview, scope }: { overview: Overview; scope: DrillScope }) {
  const { series, previousSeries, granularity } = overview;
  const buckets: Bucket[] = series.map((point, i) => {
    const previous = previousSeries?.[i];
    const numbers = `${formatCents(point.cardSpendCents)} card spend${
      previous ? `, previous period ${formatCents(previous.cardSpendCents)}` : ''
    }`;
    return {
      point,
      previous,
      label: `${bucketName(point.day, granularity)}: ${numbers}`,
      rowLabel: `${bucketName(point.day, granularity, true)}: ${numbers}`,
    };
  });
  const per = granularity === 'week' ? 'week' : 'day';
  return (
    <ChartFrame
      title={`Card spend per ${per}`}
      note={
        // Nothing drawn: no bars or line to explain.
        !buckets.length || noSpend(overview)
          ? undefined
          : previousSeries
            ? `Card charges less refunds. Bars: this period. Line: the ${series.length} ${per}s before it. A bar opens its spend.`
            : `Card charges less refunds. A bar opens its ${per}'s spend.`
      }
      chart={
        !buckets.length ? (
          <p className="empty">No days in this period.</p>
        ) : noSpend(overview) && overview.status === 'computing' ? (
          // The drawing's own height (in CSS), so the screen does not jump when the bars come.
          <p className="spend-chart-placeholder muted">Drawn once the first days are read.</p>
        ) : noSpend(overview) ? (
          <p className="empty">
            No card spend in this period{previousSeries ? ' or the one before' : ''}.
          </p>
        ) : (
          <SpendBars buckets={buckets} scope={scope} granularity={granularity} />
        )
      }
      table={
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{granularity === 'week' ? 'Week of' : 'Day'}</th>
                <th scope="col" className="num">
                  Card spend
                </th>
                {previousSeries ? (
                  <th scope="col" className="num">
                    Previous period
                  </th>
                ) : null}
                <th scope="col" className="num">
                  {/* May hyphenate at its syllable on a phone (a soft hyphen). */}
                  Trans&shy;actions
                </th>
              </tr>
            </thead>
            <tbody>
              {buckets.map((b) => (
                <tr key={b.point.day}>
                  <th scope="row">
                    <Link
                      to="/transactions"
                      search={bucketSearch(scope, b.point.day, granularity)}
                      aria-label={b.rowLabel}
                    >
                      <DayWithYear day={b.point.day} />
                    </Link>
                  </th>
                  <td className="num">{formatCents(b.point.cardSpendCents)}</td>
                  {previousSeries ? (
                    <td className="num">
                      {b.previous ? formatCents(b.previous.cardSpendCents) : '—'}
                    </td>
                  ) : null}
                  <td className="num">{formatCount(b.point.count)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      }
    />
  );
}

function SpendBars({
  buckets,
  scope,
  granularity,
}: {
  buckets: Bucket[];
  scope: DrillScope;
  granularity: Overview['granularity'];
}) {
  const [box, width] = useMeasuredWidth<HTMLDivElement>(WIDTH);
  const x = scaleBand<number>()
    .domain(buckets.map((_, i) => i))
    .range([MARGIN.left, width - MARGIN.right])
    .paddingInner(0.2)
    .paddingOuter(0.1);
  const top = Math.max(
    LEAST_TOP,
    ...buckets.map((b) => Math.max(b.point.cardSpendCents, b.previous?.cardSpendCents ?? 0)),
  );
  const y = scaleLinear()
    .domain([0, top])
    .nice(4)
    .range([HEIGHT - MARGIN.bottom, MARGIN.top]);
  const centre = (i: number) => (x(i) ?? 0) + x.bandwidth() / 2;
  const previous = buckets.flatMap((b, i) => (b.previous ? [{ i, cents: drawn(b.previous) }] : []));
  const previousPath = line<{ i: number; cents: number }>()
    .x((d) => centre(d.i))
    .y((d) => y(d.cents))(previous);
  const last = buckets.length - 1;
  const labelled = [...new Set([0, Math.floor(last / 2), last])];
  return (
    <div ref={box} className="spend-chart-box">
      <svg className="spend-chart" width={width} height={HEIGHT} viewBox={`0 0 ${width} ${HEIGHT}`}>
        <title>{`Card spend per ${granularity === 'week' ? 'week' : 'day'}, a bar for each`}</title>
        {y.ticks(4).map((tick) => (
          // biome-ignore lint/a11y/noAriaHiddenOnFocusable: an SVG group takes no focus
          <g key={tick} className="tick" aria-hidden="true">
            <line x1={MARGIN.left} x2={width - MARGIN.right} y1={y(tick)} y2={y(tick)} />
            <text x={MARGIN.left - 6} y={y(tick)} dy="0.32em" textAnchor="end">
              {compactDollars.format(tick / 100)}
            </text>
          </g>
        ))}
        {buckets.map((b, i) => (
          <Link
            key={b.point.day}
            to="/transactions"
            search={bucketSearch(scope, b.point.day, granularity)}
            aria-label={b.label}
            className="bar-link"
          >
            {/* The whole column is the target, so a day with little spend is easy to hit. */}
            <rect
              className="hit"
              x={x(i)}
              width={x.bandwidth()}
              y={MARGIN.top}
              height={HEIGHT - MARGIN.bottom - MARGIN.top}
            />
            <rect
              className="bar"
              x={x(i)}
              width={x.bandwidth()}
              y={y(drawn(b.point))}
              height={HEIGHT - MARGIN.bottom - y(drawn(b.point))}
            />
          </Link>
        ))}
        {previousPath ? (
          // biome-ignore lint/a11y/noAriaHiddenOnFocusable: an SVG path takes no focus
          <path className="previous" d={previousPath} aria-hidden="true" />
        ) : null}
        {labelled.map((i) => (
          // biome-ignore lint/a11y/noAriaHiddenOnFocusable: SVG text takes no focus
          <text
            key={i}
            className="axis-label"
            x={centre(i)}
            y={HEIGHT - 6}
            textAnchor={i === 0 ? 'start' : i === last ? 'end' : 'middle'}
            aria-hidden="true"
          >
            {/* The day alone ("Nov 3"): "Week of" is in the heading, and would crowd a phone. */}
            {buckets[i] ? formatShortDay(buckets[i].point.day) : null}
          </text>
        ))}
      </svg>
    </div>
  );
}

/** "Nov 24, 2025", wrapping (on a phone) only before the year, so the table fits a narrow panel. */
function DayWithYear({ day }: { day: string }) {
  const text = formatShortDay(day, true);
  const year = text.lastIndexOf(' ');
  return (
    <>
      <span className="nowrap">{text.slice(0, year)}</span>
      {text.slice(year)}
    </>
  );
}
