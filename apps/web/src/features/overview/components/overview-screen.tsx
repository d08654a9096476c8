import type { Overview, OverviewQuery } from '@card-console/shared/api/overview';
import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import { formatCents } from '@card-console/shared/money';
import { useNavigate } from '@tanstack/react-router';
import { DayRangeFields } from '../../../components/day-range-fields';
import { Field } from '../../../components/field';
import { ListNotLoaded } from '../../../components/list-not-loaded';
import { SearchNotice } from '../../../components/search-notice';
import { useDocumentTitle } from '../../../components/use-document-title';
import { PERIOD_LABELS } from '../../../lib/periods';
import type { TransactionsSearch } from '../../transactions';
import { type DrillScope, declineSearch, spendSearch } from '../drill-down';
import { formatReadAt } from '../format-read-at';
import { type OverviewSearch, PERIODS, type Period } from '../overview-search';
import { OVERVIEW_SEARCH_WORDS } from '../overview-search-words';
import { formatCount, formatShortDay } from './chart-frame';
import { OverviewFreshness } from './overview-freshness';
import { OverviewTiles } from './overview-tiles';
import { RankedChart } from './ranked-chart';
import { SpendChart } from './spend-chart';

const PERIOD_LABEL: Record<Period, string> = {
  ...PERIOD_LABELS,
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
  '365d': 'Last 365 days',
  custom: 'Custom dates',
};

interface OverviewScreenProps {
  search: OverviewSearch;
  /** What the route asked the BFF for: the sub account, the period's days, the zone. */
  query: OverviewQuery;
  subAccounts: SubAccount[];
  /** The numbers; undefined until they arrive. */
  overview: Overview | undefined;
  /** Why the numbers did not load: shown in the tiles' and charts' place, the choices kept. */
  error?: unknown;
  onRetry?: () => void;
  /** The numbers shown are the previous choice's while the new ones load (or the first load). */
  busy: boolean;
}

export function OverviewScreen({
  search,
  query,
  subAccounts,
  overview,
  error,
  onRetry,
  busy,
}: OverviewScreenProps) {
  useDocumentTitle('Overview');
  const navigate = useNavigate();
  const set = (patch: Partial<OverviewSearch>) =>
    void navigate({ to: '/overview', search: { ...search, ...patch } });
  const scope: DrillScope = { subAccountId: search.subAccountId, from: query.from, to: query.to };
  return (
    <section aria-labelledby="overview-title" className="overview">
      <div className="screen-header">
        <h1 id="overview-title">Overview</h1>
      </div>
      <SearchNotice words={OVERVIEW_SEARCH_WORDS} />
      <fieldset className="filters overview-filters">
        <legend className="visually-hidden">What to show</legend>
        <Field label="Sub account">
          {(control) => (
            <select
              {...control}
              value={search.subAccountId ?? ''}
              onChange={(e) => set({ subAccountId: e.target.value || undefined })}
              // The chosen name whole, where the field is narrower than it.
              title={subAccounts.find((s) => s.id === search.subAccountId)?.name}
            >
              <option value="">All sub accounts</option>
              {subAccounts.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Period">
          {(control) => (
            <select
              {...control}
              value={search.period ?? '30d'}
              onChange={(e) => {
                const period = e.target.value as Period;
                // Custom starts from the days shown, for the person to change.
                set(
                  period === 'custom'
                    ? { period, from: query.from, to: query.to }
                    : {
                        period: period === '30d' ? undefined : period,
                        from: undefined,
                        to: undefined,
                      },
                );
              }}
            >
              {PERIODS.map((p) => (
                <option key={p} value={p}>
                  {PERIOD_LABEL[p]}
                </option>
              ))}
            </select>
          )}
        </Field>
        {search.period === 'custom' ? (
          <DayRangeFields
            from={search.from}
            to={search.to}
            onChange={(range) => {
              if (range.from && range.to) set({ period: 'custom', from: range.from, to: range.to });
            }}
          />
        ) : null}
      </fieldset>
      <div className="overview-period">
        <p className="muted">
          {formatShortDay(query.from, true)} – {formatShortDay(query.to, true)}
          {search.subAccountId
            ? `, ${subAccounts.find((s) => s.id === search.subAccountId)?.name ?? 'one sub account'}`
            : ', all sub accounts'}
        </p>
        {overview?.updatedAt ? (
          // A new period starts with no refresh under way and no refresh error.
          <OverviewFreshness
            key={JSON.stringify(query)}
            query={query}
            updatedAt={overview.updatedAt}
            busy={busy}
          />
        ) : null}
      </div>
      {overview ? (
        <OverviewNumbers overview={overview} scope={scope} busy={busy} />
      ) : (
        <ListNotLoaded error={error} busy={busy} onRetry={onRetry} />
      )}
    </section>
  );
}

/** The period's tiles, spend over time and ranked lists, each row opening its transactions. */
function OverviewNumbers({
  overview,
  scope,
  busy,
}: {
  overview: Overview;
  scope: DrillScope;
  busy: boolean;
}) {
  return (
    <>
      <OverviewStatus overview={overview} />
      <div className="overview-body" aria-busy={busy || undefined}>
        <OverviewTiles overview={overview} />
        <SpendChart overview={overview} scope={scope} />
        <div className="overview-grid">
          <RankedChart
            title="Card spend by category"
            note="Card charges less refunds; payments without a card are not in it. A row opens that category's spend in the period."
            columns={['Category', 'Card spend', COUNT]}
            rows={spendRows(overview.categories, (r) =>
              spendSearch(scope, { categoryGroup: [r.key] }),
            )}
            empty="No card spend in this period."
          />
          {overview.categoryCodes ? (
            <RankedChart
              title="Top merchant categories"
              note="A row opens that merchant category code's spend in the period."
              columns={['Merchant category', 'Card spend', COUNT]}
              rows={spendRows(overview.categoryCodes, (r) =>
                spendSearch(scope, { category: [r.key] }),
              )}
              empty="No card spend in this period."
            />
          ) : null}
          <RankedChart
            title="Top merchants"
            note="A merchant however the card networks write it; a row opens its spend in the period."
            columns={['Merchant', 'Card spend', COUNT]}
            rows={spendRows(overview.merchants, (r) =>
              spendSearch(scope, { merchantName: [r.key] }),
            )}
            empty="No merchants in this period."
          />
          <RankedChart
            title="Top cards"
            note="A row opens that card's spend in the period."
            columns={['Card', 'Card spend', COUNT]}
            rows={spendRows(overview.cards, (r) => spendSearch(scope, { cardId: [r.key] }))}
            empty="No card spend in this period."
          />
          <Declines overview={overview} scope={scope} />
        </div>
      </div>
    </>
  );
}

/**
 * The count column's header: on a phone it may hyphenate at its syllable, so a name column as
 * wide as its longest word and an amount still fit beside it; desktop shows it whole.
 */
const COUNT = 'Trans\u00ADactions';

const transactions = (n: number) => `${formatCount(n)} transaction${n === 1 ? '' : 's'}`;

type Ranked = Overview['categories'][number];

/** A ranked list's rows by their card spend (a bar never below zero), each opening the transactions `search` gives. */
function spendRows(ranked: readonly Ranked[], search: (r: Ranked) => TransactionsSearch) {
  return ranked.map((r) => ({
    key: r.key,
    label: r.label,
    value: Math.max(r.spentCents, 0),
    cells: [formatCents(r.spentCents), formatCount(r.count)],
    name: `${r.label}: ${formatCents(r.spentCents)} card spend, ${transactions(r.count)}`,
    search: search(r),
  }));
}

/** Computing: how far the first reading has got. Failed: say so; the numbers are what was known. */
function OverviewStatus({ overview }: { overview: Overview }) {
  const { status, progress } = overview;
  if (status === 'failed') {
    return (
      <div className="warning overview-status" role="alert">
        Could not finish reading this period's transactions
        {overview.error ? `: ${overview.error.replace(/[.!?]$/, '')}` : ''}. The numbers below are
        what was read before that, and may be short.
        {overview.retryAt ? (
          <>
            {' '}
            It is read again from{' '}
            <time dateTime={overview.retryAt}>{formatReadAt(overview.retryAt)}</time>, when you come
            back or refresh.
          </>
        ) : null}
      </div>
    );
  }
  return (
    <div className="overview-status" role="status">
      {status === 'computing' ? (
        <>
          <p>
            Reading transactions… {formatCount(progress?.rowsRead ?? 0)}
            {progress?.rowsEstimated !== undefined
              ? ` of about ${formatCount(Math.max(progress.rowsEstimated, progress.rowsRead))}`
              : ' so far'}
            . The charts below fill in as they are read; the period's totals show once all are read.
          </p>
          <progress
            aria-label="Transactions read"
            max={progress?.rowsEstimated ?? undefined}
            value={progress?.rowsEstimated !== undefined ? progress.rowsRead : undefined}
          />
        </>
      ) : null}
    </div>
  );
}

function Declines({ overview, scope }: { overview: Overview; scope: DrillScope }) {
  const { count, rate, reasons } = overview.declines;
  return (
    <RankedChart
      title={`Card declines: ${formatCount(count)} (${(rate * 100).toFixed(1)}% of card transactions)`}
      note="Card charges the service declined, by its reason (Declined (attempted) above also counts canceled and failed rows). A row opens the period's declines for that reason."
      columns={['Reason', 'Declines']}
      rows={reasons.map((r) => ({
        key: r.reason,
        label: r.reason,
        value: r.count,
        cells: [formatCount(r.count)],
        name: `${r.reason}: ${formatCount(r.count)} declined`,
        search: declineSearch(scope, r.reason),
      }))}
      empty="No declines in this period."
    />
  );
}
