import type { Overview, Totals } from '@card-console/shared/api/insights';
import { formatCents } from '@card-console/shared/money';
import { useId } from 'react';
import { formatCount } from './chart-frame';

interface Tile {
  label: string;
  value: string;
  /** "+12% · $1,000.00 the period before", or what the figure is. */
  note?: string | undefined;
}

/**
 * The period's figures, its spend first and largest, apart from the figures that are not the
 * period's at all (the balance and the spend the card service reports, over all time): the two
 * are never read side by side as if they were comparable. While a first reading is under way the
 * period's figures are placeholders, never a partial sum that looks like a final one.
 */
export function OverviewTiles({ overview }: { overview: Overview }) {
  const periodId = useId();
  const lifetimeId = useId();
  const { totals, previousTotals: before } = overview;
  const loading = overview.status === 'computing';
  const versus = (now: number, then: number | undefined, format: (n: number) => string) =>
    then === undefined ? undefined : `${change(now, then)} · ${format(then)} the period before`;
  const money = (label: string, key: keyof Totals): Tile => ({
    label,
    value: formatCents(totals[key]),
    note: versus(totals[key], before?.[key], formatCents),
  });
  const hero = money('Spend', 'debitsCents');
  const period: Tile[] = [
    money('Credits', 'creditsCents'),
    money('Pending', 'pendingCents'),
    {
      label: 'Transactions',
      value: formatCount(totals.count),
      note: versus(totals.count, before?.count, formatCount),
    },
  ];
  const lifetime: Tile[] = [
    { label: 'Balance', value: optionalCents(overview.balanceCents) },
    { label: 'Lifetime spend', value: optionalCents(overview.spendCents) },
  ];
  return (
    <div className="overview-figures">
      <section className="overview-figure-group" aria-labelledby={periodId}>
        <h2 id={periodId} className="overview-figure-title">
          This period
        </h2>
        <dl className="overview-tiles">
          <TileView tile={hero} loading={loading} hero />
          {period.map((t) => (
            <TileView key={t.label} tile={t} loading={loading} />
          ))}
        </dl>
      </section>
      <section className="overview-figure-group overview-lifetime" aria-labelledby={lifetimeId}>
        <h2 id={lifetimeId} className="overview-figure-title">
          All time <span className="muted">as the card service reports it</span>
        </h2>
        <dl className="overview-tiles">
          {lifetime.map((t) => (
            <TileView key={t.label} tile={t} loading={false} />
          ))}
        </dl>
      </section>
    </div>
  );
}

function TileView({ tile, loading, hero }: { tile: Tile; loading: boolean; hero?: boolean }) {
  return (
    <div className={hero ? 'overview-tile overview-tile-hero' : 'overview-tile'}>
      <dt>{tile.label}</dt>
      {loading ? (
        <dd className="overview-tile-value">
          <span className="skeleton-line overview-tile-skeleton" aria-hidden="true" />
          <span className="visually-hidden">Loading</span>
        </dd>
      ) : (
        <>
          <dd className="overview-tile-value">{tile.value}</dd>
          {tile.note ? <dd className="muted">{tile.note}</dd> : null}
        </>
      )}
    </div>
  );
}

const optionalCents = (cents: number | undefined) =>
  cents === undefined ? '—' : formatCents(cents);

/** "+12%", "−5%", "no change"; "new" when there was nothing before. */
function change(now: number, before: number): string {
  if (now === before) return 'no change';
  if (before === 0) return 'new';
  const pct = Math.round(((now - before) / before) * 100);
  if (pct === 0) return now > before ? '+<1%' : '−<1%';
  return pct > 0 ? `+${pct}%` : `−${-pct}%`;
}
