import type { Overview } from '@card-console/shared/api/overview';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { parseSearch } from '../../../lib/url-search';
import { financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { serveIndex } from '../../../test/serve-index';
import { apiError, requestsTo, serve as serveEndpoint, server } from '../../../test/server';
import { formatReadAt } from '../format-read-at';

/** A period's totals: card spend `cardSpendCents` ($12 of it pending), an ACH payment of
 * $300, $50 of funding in, 2 declined. */
const totals = (cardSpendCents: number, count: number): Overview['totals'] => {
  const figure = (count: number, cents: number, pendingCents = 0) => ({
    count,
    cents,
    pendingCount: pendingCents ? 1 : 0,
    pendingCents,
  });
  return {
    cardSpendCents,
    cardSpendPendingCents: 1_200,
    money: {
      card: figure(Math.max(count - 4, 0), -cardSpendCents, -1_200),
      refund: figure(0, 0),
      payment: figure(1, -30_000),
      transfer: figure(1, 5_000),
      released: figure(0, 0),
      attempted: figure(2, -900),
      returned: figure(0, 0),
    },
    count,
  };
};

function overview(overrides: Partial<Overview> = {}): Overview {
  return {
    status: 'complete',
    period: { from: '2026-03-02', to: '2026-03-04', tz: 'UTC' },
    balanceCents: 1_234_567,
    spendCents: 250_000,
    totals: totals(123_456, 40),
    previousTotals: totals(100_000, 32),
    granularity: 'day',
    series: [
      { day: '2026-03-02', cardSpendCents: 100_000, count: 20 },
      { day: '2026-03-03', cardSpendCents: 0, count: 5 },
      { day: '2026-03-04', cardSpendCents: 23_456, count: 15 },
    ],
    previousSeries: [
      { day: '2026-02-27', cardSpendCents: 40_000, count: 10 },
      { day: '2026-02-28', cardSpendCents: 50_000, count: 12 },
      { day: '2026-03-01', cardSpendCents: 10_000, count: 10 },
    ],
    categories: [
      { key: 'airlines', label: 'Travel', spentCents: 90_000, count: 3 },
      { key: 'misc-stores', label: 'Restaurants', spentCents: 33_456, count: 30 },
    ],
    merchants: [
      {
        key: 'Acme Air',
        label: 'Acme Air',
        spentCents: 90_000,
        count: 3,
        ways: 2,
        descriptors: ['ACME AIR', 'PAYPAL *ACME AIR'],
      },
    ],
    cards: [{ key: 'card_9', label: 'Travel •••• 4242', spentCents: 123_456, count: 33 }],
    declines: {
      count: 6,
      rate: 0.15,
      reasons: [
        { reason: 'insufficient_funds', count: 4 },
        { reason: 'No reason given', count: 2 },
      ],
    },
    ...overrides,
  };
}

function serve(...answers: Overview[]) {
  let n = 0;
  server.use(
    serveEndpoint('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serveEndpoint('overview.get', () =>
      HttpResponse.json(answers[Math.min(n++, answers.length - 1)]),
    ),
  );
}

const CUSTOM = '/overview?subAccountId=sa_mkt&period=custom&from=2026-03-02&to=2026-03-04';

/** Where a link goes: its path and search, read as the app reads an address (a list of one is its value). */
function target(link: HTMLElement) {
  const url = new URL(link.getAttribute('href') ?? '', 'http://x');
  return { path: url.pathname, search: { ...parseSearch(url.search) } };
}

const SPEND = ['pending', 'settled', 'refund', 'dispute'];

const spendSection = () => screen.getByRole('region', { name: 'Card spend per day' });

describe('overview screen', () => {
  it('asks for the chosen sub account and days, and draws tiles and bars from the answer', async () => {
    serve(overview());
    renderApp(CUSTOM, { session: financeSession() });
    await screen.findByRole('heading', { name: 'Overview' });
    const sent = new URL(requestsTo('/api/overview')[0]?.url ?? '');
    expect(Object.fromEntries(sent.searchParams)).toEqual({
      subAccountId: 'sa_mkt',
      from: '2026-03-02',
      to: '2026-03-04',
      tz: expect.any(String),
    });

    // The period's figures, its spend first, apart from the all-time ones the service reports.
    const period = screen.getByRole('region', { name: 'This period' });
    const lifetime = screen.getByRole('region', { name: /^All time/ });
    const tile = (group: HTMLElement, label: string) =>
      within(group).getByText(label, { selector: 'dt' }).parentElement?.textContent;
    expect(
      within(period)
        .getAllByRole('term')
        .map((t) => t.textContent),
    ).toEqual([
      'Card spend',
      'Other payments',
      'Transfers in',
      'Declined (attempted)',
      'Transactions',
    ]);
    // Card spend, its pending part and what it includes; what is not card spend apart, each
    // saying what it is (an ACH payment is an other payment, funding a transfer in).
    expect(tile(period, 'Card spend')).toBe(
      'Card spend$1,234.56+23% · $1,000.00 the period before' +
        'Of which $12.00 pending. Settled, pending and disputed card charges, less refunds. ' +
        'Declined, canceled, failed and reversed charges are not in it.',
    );
    expect(tile(period, 'Other payments')).toBe(
      'Other payments$300.00no change · $300.00 the period before' +
        'Payments without a card, such as ACH to a supplier: spend, not card spend.',
    );
    expect(tile(period, 'Transfers in')).toBe(
      'Transfers in$50.00no change · $50.00 the period before' +
        'Funding and transfers into the account: never spend.',
    );
    expect(tile(period, 'Declined (attempted)')).toBe(
      'Declined (attempted)2no change · 2 the period before' +
        'Declined, canceled and failed: no money moved.',
    );
    expect(tile(period, 'Transactions')).toMatch(/^Transactions40\+25% · 32 the period before/);
    expect(
      within(lifetime)
        .getAllByRole('term')
        .map((t) => t.textContent),
    ).toEqual(['Balance', 'Lifetime spend']);
    expect(tile(lifetime, 'Balance')).toBe(
      'Balance$12,345.67The money that moved: settled, refunded and disputed rows, funding and payments included.',
    );
    expect(tile(lifetime, 'Lifetime spend')).toBe(
      'Lifetime spend$2,500.00Card spend since the account opened: card charges less refunds.',
    );
    expect(lifetime).toHaveTextContent('as the card service reports it');

    const bars = within(spendSection()).getAllByRole('link');
    expect(bars.map((b) => b.getAttribute('aria-label'))).toEqual([
      'Mar 2: $1,000.00 card spend, previous period $400.00',
      'Mar 3: $0.00 card spend, previous period $500.00',
      'Mar 4: $234.56 card spend, previous period $100.00',
    ]);
    // Taller bar for more spend; the previous period drawn as a line.
    const heights = bars.map((b) => Number(b.querySelector('rect.bar')?.getAttribute('height')));
    expect(heights[0]).toBeGreaterThan(heights[2] ?? 0);
    expect(heights[1]).toBe(0);
    expect(spendSection().querySelector('path.previous')?.getAttribute('d')).toMatch(/^M.+L.+L/);
  });

  it('shows each chart as a table with the same numbers, and its rows as links', async () => {
    serve(overview());
    const { user } = renderApp(CUSTOM, { session: financeSession() });
    await screen.findByRole('heading', { name: 'Overview' });
    const chartNames = within(spendSection())
      .getAllByRole('link')
      .map((l) => l.getAttribute('aria-label'));
    const toggle = within(spendSection()).getByRole('button', { name: 'Show as table' });
    await user.click(toggle);
    // The same button, now saying what a press does next; no aria-pressed beside a label that changes.
    expect(toggle).toHaveAccessibleName('Show as chart');
    expect(toggle).not.toHaveAttribute('aria-pressed');
    expect(toggle).toHaveFocus();
    expect(spendSection().querySelector('svg')).toBeNull();
    const table = within(spendSection()).getByRole('table');
    const rows = within(table).getAllByRole('row').slice(1);
    // A row's link is named by the date it shows (with its year), then the bar's numbers.
    expect(rows.map((r) => within(r).getByRole('link').getAttribute('aria-label'))).toEqual(
      chartNames.map((name) => name?.replace(/^(\w+ \d+):/, '$1, 2026:')),
    );
    expect(within(rows[0] as HTMLElement).getByRole('link')).toHaveAccessibleName(
      'Mar 2, 2026: $1,000.00 card spend, previous period $400.00',
    );
    expect(rows.map((r) => r.textContent)).toEqual([
      'Mar 2, 2026$1,000.00$400.0020',
      'Mar 3, 2026$0.00$500.005',
      'Mar 4, 2026$234.56$100.0015',
    ]);
    await user.click(toggle);
    expect(toggle).toHaveAccessibleName('Show as table');
    expect(within(spendSection()).queryByRole('table')).toBeNull();
    expect(spendSection().querySelector('svg')).not.toBeNull();

    const categories = screen.getByRole('region', { name: 'Card spend by category' });
    const barNames = within(categories)
      .getAllByRole('link')
      .map((l) => l.getAttribute('aria-label'));
    expect(barNames).toEqual([
      'Travel: $900.00 card spend, 3 transactions',
      'Restaurants: $334.56 card spend, 30 transactions',
    ]);
    await user.click(within(categories).getByRole('button', { name: 'Show as table' }));
    const categoryRows = within(within(categories).getByRole('table')).getAllByRole('row').slice(1);
    expect(categoryRows.map((r) => r.textContent)).toEqual([
      'Travel$900.003',
      'Restaurants$334.5630',
    ]);
  });

  it('drills down into Transactions exactly: a day, a card, a category group, a merchant, a decline reason', async () => {
    serve(overview());
    renderApp(CUSTOM, { session: financeSession() });
    await screen.findByRole('heading', { name: 'Overview' });
    const period = { subAccountId: 'sa_mkt', from: '2026-03-02', to: '2026-03-04' };
    // Spend is what the Overview counts as spend: those statuses, so the debits match.
    expect(target(screen.getByRole('link', { name: /^Mar 3:/ }))).toEqual({
      path: '/transactions',
      search: { ...period, from: '2026-03-03', to: '2026-03-03', status: SPEND },
    });
    expect(target(screen.getByRole('link', { name: /^Travel •••• 4242:/ })).search).toEqual({
      ...period,
      status: SPEND,
      cardId: 'card_9',
    });
    expect(target(screen.getByRole('link', { name: /^Travel: / })).search).toEqual({
      ...period,
      status: SPEND,
      categoryGroup: 'airlines',
    });
    // A merchant by its name: every text of it, not the first.
    expect(target(screen.getByRole('link', { name: /^Acme Air: / })).search).toEqual({
      ...period,
      status: SPEND,
      merchantName: 'Acme Air',
    });
    // A card's declines, as the chart counts them: a declined row without a card is not one.
    expect(target(screen.getByRole('link', { name: /^insufficient_funds:/ })).search).toEqual({
      ...period,
      status: 'declined',
      card: 'with',
      declineReason: 'insufficient_funds',
    });
    // Those without a reason open exactly those, not every decline.
    expect(target(screen.getByRole('link', { name: /^No reason given:/ })).search).toEqual({
      ...period,
      status: 'declined',
      card: 'with',
      noDeclineReason: '1',
    });
    // No row says it cannot be filtered any more.
    expect(screen.queryByText(/can't be filtered/)).not.toBeInTheDocument();
    // Read from the card service, the Overview has no merchant category codes to show.
    expect(screen.queryByRole('region', { name: 'Top merchant categories' })).toBeNull();
  });

  it('read from the index, shows the top merchant category codes, each opening its code', async () => {
    serve(
      overview({
        categoryCodes: [
          { key: '5734', label: 'Computer Software Stores', spentCents: 80_000, count: 2 },
          { key: '4511', label: 'Airlines, Air Carriers', spentCents: 10_000, count: 1 },
        ],
      }),
    );
    renderApp(CUSTOM, { session: financeSession() });
    const codes = await screen.findByRole('region', { name: 'Top merchant categories' });
    const link = within(codes).getByRole('link', { name: /^Computer Software Stores: / });
    expect(link).toHaveAccessibleName(
      'Computer Software Stores: $800.00 card spend, 2 transactions',
    );
    expect(target(link).search).toEqual({
      subAccountId: 'sa_mkt',
      from: '2026-03-02',
      to: '2026-03-04',
      status: SPEND,
      category: '5734',
    });
  });

  it('over all sub accounts, links open all of them; a week bar opens its days within the period', async () => {
    serve(
      overview({
        period: { from: '2026-01-01', to: '2026-04-30', tz: 'UTC' },
        granularity: 'week',
        series: [
          { day: '2025-12-29', cardSpendCents: 500, count: 1 },
          { day: '2026-04-27', cardSpendCents: 700, count: 1 },
        ],
        previousSeries: undefined,
      }),
    );
    const { user, router } = renderApp('/overview?period=custom&from=2026-01-01&to=2026-04-30', {
      session: financeSession(),
    });
    const first = await screen.findByRole('link', { name: 'Week of Dec 29: $5.00 card spend' });
    expect(target(first).search).toEqual({ from: '2026-01-01', to: '2026-01-04', status: SPEND });
    expect(target(screen.getByRole('link', { name: /^Week of Apr 27/ })).search).toEqual({
      from: '2026-04-27',
      to: '2026-04-30',
      status: SPEND,
    });
    expect(
      new URL(requestsTo('/api/overview')[0]?.url ?? '').searchParams.has('subAccountId'),
    ).toBe(false);
    // A bar is a link: the keyboard reaches it.
    first.focus();
    expect(first).toHaveFocus();
    serveIndex([]);
    await user.click(screen.getByRole('link', { name: /^Week of Apr 27/ }));
    expect(await screen.findByRole('heading', { name: 'Transactions' })).toBeInTheDocument();
    expect(router.state.location.search).toEqual({
      from: '2026-04-27',
      to: '2026-04-30',
      status: SPEND,
    });
  });

  it('while computing shows how far it has read and asks again until complete', async () => {
    serve(
      overview({ status: 'computing', progress: { rowsRead: 12_345, rowsEstimated: 40_000 } }),
      overview(),
    );
    renderApp(CUSTOM, { session: financeSession() });
    expect(
      await screen.findByText(/Reading transactions… 12,345 of about 40,000/),
    ).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText(/Reading transactions/)).toBeNull());
    expect(requestsTo('/api/overview').length).toBe(2);
    expect(screen.getByRole('link', { name: /^Mar 2:/ })).toBeInTheDocument();
  });

  it('a failed reading says so and keeps the numbers known', async () => {
    const retryAt = '2026-03-10T15:20:00.000Z';
    serve(overview({ status: 'failed', error: 'The card service did not answer.', retryAt }));
    renderApp(CUSTOM, { session: financeSession() });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      /^Could not finish reading this period's transactions: The card service did not answer\. The numbers below are what was read before that, and may be short\. It is read again from .+, when you come back or refresh\.$/,
    );
    expect(alert.querySelector('time')).toHaveAttribute('datetime', retryAt);
    expect(
      screen.getByRole('link', { name: /^Mar 2: \$1,000\.00 card spend/ }),
    ).toBeInTheDocument();
    expect(screen.getByText('Card spend', { selector: 'dt' }).nextSibling).toHaveTextContent(
      '$1,234.56',
    );
  });

  it("says which of a link's values it left out, and shows the last 30 days of all sub accounts", async () => {
    serve(overview());
    const { router } = renderApp('/overview?subAccountId=..&period=7d', {
      session: financeSession(),
    });
    const notice = await screen.findByText(/period “7d” isn't one the Overview shows/);
    expect(notice.closest('[role="status"]')).toHaveTextContent(/sub account “\.\.”/);
    expect(router.state.location.search).toEqual({});
    const sent = new URL(requestsTo('/api/overview').at(-1)?.url ?? '');
    expect(sent.searchParams.has('subAccountId')).toBe(false);
    const from = sent.searchParams.get('from') ?? '';
    const to = sent.searchParams.get('to') ?? '';
    expect((Date.parse(to) - Date.parse(from)) / 86_400_000).toBe(29);
  });

  it('offers the calendar presets too: "Last month" asks for the whole previous month, by name in the link', async () => {
    serve(overview());
    const { user, router } = renderApp('/overview', { session: financeSession() });
    await screen.findByRole('heading', { name: 'Overview' });
    await user.selectOptions(screen.getByLabelText('Period'), 'last-month');
    await waitFor(() => expect(router.state.location.search).toEqual({ period: 'last-month' }));
    // Worked out here from the calendar, in the zone the request names.
    await waitFor(() => expect(requestsTo('/api/overview').length).toBeGreaterThan(1));
    const sent = new URL(requestsTo('/api/overview').at(-1)?.url ?? '');
    const tz = sent.searchParams.get('tz') ?? '';
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(new Date());
    const [y, m] = today.split('-').map(Number) as [number, number];
    const first = new Date(Date.UTC(y, m - 2, 1)).toISOString().slice(0, 10);
    const last = new Date(Date.UTC(y, m - 1, 0)).toISOString().slice(0, 10);
    expect([sent.searchParams.get('from'), sent.searchParams.get('to')]).toEqual([first, last]);
  });

  it('a custom period out of order is noticed', async () => {
    serve(overview());
    renderApp('/overview?period=custom&from=2026-03-05&to=2026-03-01', {
      session: financeSession(),
    });
    expect(
      await screen.findByText(
        /custom period \(from “2026-03-05” to “2026-03-01”\) needs two days in order/,
      ),
    ).toBeInTheDocument();
  });

  it('comes first in the main navigation', async () => {
    serve(overview());
    renderApp(CUSTOM, { session: financeSession() });
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    const first = within(nav).getAllByRole('link')[0];
    expect(first).toHaveTextContent('Overview');
    expect(first).toHaveAttribute('aria-current', 'page');
  });

  it('without a time the period was read (every day final), offers no refresh', async () => {
    serve(overview());
    renderApp(CUSTOM, { session: financeSession() });
    await screen.findByRole('link', { name: /^Mar 2:/ });
    expect(screen.queryByText(/^Updated/)).toBeNull();
    expect(screen.queryByRole('button', { name: /^Refresh/ })).toBeNull();
  });

  it('Refresh asks again with refresh=1 for the same period, busy meanwhile, and shows the answer in its place', async () => {
    const readAt = new Date();
    readAt.setHours(14, 3, 7, 0);
    const later = new Date(readAt.getTime() + 65_000);
    let answerRefresh: () => void = () => {};
    server.use(
      serveEndpoint('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
      serveEndpoint('overview.get', async ({ request }) => {
        if (!new URL(request.url).searchParams.has('refresh')) {
          return HttpResponse.json(overview({ updatedAt: readAt.toISOString() }));
        }
        await new Promise<void>((resolve) => {
          answerRefresh = resolve;
        });
        return HttpResponse.json(
          overview({ updatedAt: later.toISOString(), totals: totals(200_000, 41) }),
        );
      }),
    );
    const { user, queryClient } = renderApp(CUSTOM, { session: financeSession() });
    expect(await screen.findByText('Updated')).toHaveTextContent(/^Updated 2:03:07\sPM$/);
    const refresh = screen.getByRole('button', { name: 'Refresh' });
    await user.click(refresh);

    const busy = await screen.findByRole('button', { name: 'Refreshing…' });
    expect(busy).toBe(refresh);
    expect(busy).toHaveAttribute('aria-disabled', 'true');
    const refreshes = () =>
      requestsTo('/api/overview').filter((r) => new URL(r.url).searchParams.has('refresh'));
    await waitFor(() => expect(refreshes()).toHaveLength(1));
    const normal = requestsTo('/api/overview')[0]?.url ?? '';
    expect(Object.fromEntries(new URL(refreshes()[0]?.url ?? '').searchParams)).toEqual({
      ...Object.fromEntries(new URL(normal).searchParams),
      refresh: '1',
    });
    // Pressed again while it runs: nothing more is asked.
    await user.click(busy);
    expect(busy).toHaveFocus();

    answerRefresh();
    expect(await screen.findByRole('button', { name: 'Refresh' })).not.toHaveAttribute(
      'aria-disabled',
    );
    expect(screen.getByText('Updated')).toHaveTextContent(/^Updated 2:04:12\sPM$/);
    expect(screen.getByText('Card spend', { selector: 'dt' }).nextSibling).toHaveTextContent(
      '$2,000.00',
    );
    // The answer took the period's place in the cache: one entry, asked for as before.
    const cached = queryClient.getQueryCache().findAll({ queryKey: ['overview'] });
    expect(cached).toHaveLength(1);
    expect(cached[0]?.queryKey[1]).not.toHaveProperty('refresh');
    expect(refreshes()).toHaveLength(1);
  });

  it('a failed refresh says why and keeps the numbers shown', async () => {
    const readAt = new Date();
    readAt.setHours(9, 5, 0, 0);
    server.use(
      serveEndpoint('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
      serveEndpoint('overview.get', ({ request }) =>
        new URL(request.url).searchParams.has('refresh')
          ? apiError(502, 'upstream_unavailable', 'The card service did not answer')
          : HttpResponse.json(overview({ updatedAt: readAt.toISOString() })),
      ),
    );
    const { user } = renderApp(CUSTOM, { session: financeSession() });
    await user.click(await screen.findByRole('button', { name: 'Refresh' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Could not refresh: The card service did not answer. The numbers shown are as of the time above.',
    );
    expect(screen.getByRole('button', { name: 'Refresh' })).not.toHaveAttribute('aria-disabled');
    expect(screen.getByText('Updated')).toHaveTextContent(/^Updated 9:05:00\sAM$/);
    expect(screen.getByText('Card spend', { selector: 'dt' }).nextSibling).toHaveTextContent(
      '$1,234.56',
    );
    expect(
      screen.getByRole('link', { name: /^Mar 2: \$1,000\.00 card spend/ }),
    ).toBeInTheDocument();
  });

  it('writes when it was read in 12-hour time, as the rest of the app: the date too when not today', () => {
    const now = new Date(2026, 2, 4, 8, 0, 0).getTime();
    const read = (...at: [number, number, number, number, number, number]) =>
      formatReadAt(new Date(...at).toISOString(), now).replace(/\s/g, ' ');
    expect(read(2026, 2, 4, 0, 0, 1)).toBe('12:00:01 AM');
    expect(read(2026, 2, 4, 13, 5, 9)).toBe('1:05:09 PM');
    expect(read(2026, 2, 3, 23, 59, 59)).toBe('Mar 3, 11:59 PM');
    expect(read(2025, 11, 31, 14, 3, 7)).toBe('Dec 31, 2025, 2:03 PM');
  });

  it("while the first reading has found no spend, holds the chart's place instead of an empty axis", async () => {
    const unread = overview().series.map((p) => ({ ...p, cardSpendCents: 0, count: 0 }));
    const computing = { status: 'computing' as const, progress: { rowsRead: 0 } };
    serve(
      overview({ ...computing, series: unread, previousSeries: unread }),
      overview({
        ...computing,
        series: unread.map((p, i) => (i === 0 ? { ...p, cardSpendCents: 700 } : p)),
        previousSeries: unread,
      }),
    );
    renderApp(CUSTOM, { session: financeSession() });
    expect(
      await within(await screen.findByRole('region', { name: 'Card spend per day' })).findByText(
        'Drawn once the first days are read.',
      ),
    ).toBeInTheDocument();
    expect(spendSection().querySelector('svg')).toBeNull();
    // The next answer has a debit: the bars are drawn while the reading goes on.
    expect(
      await screen.findByRole('link', { name: 'Mar 2: $7.00 card spend, previous period $0.00' }),
    ).toBeInTheDocument();
    expect(within(spendSection()).queryByText('Drawn once the first days are read.')).toBeNull();
    expect(screen.getByText(/Reading transactions/)).toBeInTheDocument();
  });

  it('a complete period without spend says so instead of an axis of zeros; its table lists the days', async () => {
    const none = overview().series.map((p) => ({ ...p, cardSpendCents: 0 }));
    serve(overview({ series: none, previousSeries: none }));
    const { user } = renderApp(CUSTOM, { session: financeSession() });
    expect(
      await within(await screen.findByRole('region', { name: 'Card spend per day' })).findByText(
        'No card spend in this period or the one before.',
      ),
    ).toBeInTheDocument();
    expect(spendSection().querySelector('svg')).toBeNull();
    expect(screen.queryByText('Drawn once the first days are read.')).toBeNull();
    expect(within(spendSection()).queryByText(/^Bars: this period/)).toBeNull();
    await user.click(within(spendSection()).getByRole('button', { name: 'Show as table' }));
    expect(
      within(spendSection()).getByRole('link', { name: /^Mar 2, 2026: \$0\.00 card spend/ }),
    ).toBeInTheDocument();
  });

  it('a period of a few cents draws an axis of whole dollars from $0, never fractions of a cent', async () => {
    const cents = overview().series.map((p, i) => ({ ...p, cardSpendCents: i === 0 ? 7 : 0 }));
    serve(overview({ series: cents, previousSeries: undefined }));
    renderApp(CUSTOM, { session: financeSession() });
    await screen.findByRole('link', { name: 'Mar 2: $0.07 card spend' });
    const ticks = [...spendSection().querySelectorAll('g.tick text')].map((t) => t.textContent);
    expect(ticks[0]).toBe('$0');
    expect(ticks.length).toBeGreaterThan(2);
    for (const tick of ticks) expect(tick).toMatch(/^\$\d+$/);
  });

  it('while the first reading is under way, the period figures are placeholders saying Loading, never $0.00', async () => {
    const unread = overview().series.map((p) => ({ ...p, cardSpendCents: 0, count: 0 }));
    serve(
      overview({
        status: 'computing',
        progress: { rowsRead: 0 },
        totals: totals(0, 0),
        previousTotals: totals(0, 0),
        series: unread,
        previousSeries: unread,
      }),
    );
    renderApp(CUSTOM, { session: financeSession() });
    const period = await screen.findByRole('region', { name: 'This period' });
    for (const value of within(period).getAllByRole('definition')) {
      expect(value).toHaveTextContent(/^Loading$/);
    }
    expect(period).not.toHaveTextContent(/\$0\.00|no change|^0/);
    expect(within(period).getAllByText('Loading')).toHaveLength(5);
    // What the service reports over all time is not being read: it shows.
    expect(screen.getByRole('region', { name: /^All time/ })).toHaveTextContent('$12,345.67');
  });
});
