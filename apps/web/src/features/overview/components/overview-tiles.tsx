import type { Overview, Totals } from '@card-console/shared/api/overview';
import { formatCents } from '@card-console/shared/money';
import { moneyWords, netCardSpendWords } from '@card-console/shared/money-definition';
import { useId } from 'react';
import { formatCount } from './chart-frame';

interface Tile {
  label: string;
  value: string;
  /** "+12% · $1,000.00 the period before", or what the figure is. */
  note?: string | undefined;
  /** What the figure includes, in the definition's words (docs/money.md). */
  includes?: string | undefined;
}

/**
 * The period's figures by the one definition of money (docs/money.md): card spend first and
 * largest (charges less refunds, its pending part named), then what is not card spend, each
 * apart and saying what it includes: other payments (ACH), transfers in (funding), what was
 * declined. The rest apart from the figures that are not the
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
  /** A figure of the period, beside the same figure of the period before. */
  const figure = (
    label: string,
    of: (t: Totals) => number,
    includes: string,
    format: (n: number) => string = formatCents,
  ): Tile => ({
    label,
    value: format(of(totals)),
    note: versus(of(totals), before && of(before), format),
    includes,
  });
  const pending = totals.cardSpendPendingCents;
  const hero = figure(
    moneyWords.card.label,
    (t) => t.cardSpendCents,
    `${pending === 0 ? '' : `Of which ${formatCents(pending)} pending. `}${netCardSpendWords.replace(/^Card spend: ./, (s) => s.slice(-1).toUpperCase())}`,
  );
  const period: Tile[] = [
    figure(moneyWords.payment.label, (t) => -t.money.payment.cents, moneyWords.payment.includes),
    figure(moneyWords.transfer.label, (t) => t.money.transfer.cents, moneyWords.transfer.includes),
    figure(
      moneyWords.attempted.label,
      (t) => t.money.attempted.count,
      moneyWords.attempted.includes,
      formatCount,
    ),
    figure(
      'Transactions',
      (t) => t.count,
      'Every row of the period, whatever its status.',
      formatCount,
    ),
  ];
  const lifetime: Tile[] = [
    {
      label: 'Balance',
      value: optionalCents(overview.balanceCents),
      includes:
        'The money that moved: settled, refunded and disputed rows, funding and payments included.',
    },
    {
      label: 'Lifetime spend',
      value: optionalCents(overview.spendCents),
      includes: 'Card spend since the account opened: card charges less refunds.',
    },
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
          {tile.includes ? <dd className="muted overview-tile-includes">{tile.includes}</dd> : null}
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
