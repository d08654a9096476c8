import { type IndexPage, indexQuerySchema } from '@card-console/shared/api/transaction-index';
import { act, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { MAX_PAGES } from '../../../lib/search-params';
import { card, financeSession, subAccounts, transaction } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { indexRow, indexTotalsOf, queryOf } from '../../../test/serve-index';
import { apiError, requestsTo, serve, server } from '../../../test/server';

/** A list of `pages` pages of `perPage` rows; page n (from 1) is asked for with cursor "pn". */
function serveList(options: {
  pages: number;
  perPage: number;
  /** Called before a page is answered; what it returns (if anything) is the answer. */
  before?: (cursor: string | undefined) => Promise<Response | undefined> | Response | undefined;
}) {
  const { pages, perPage } = options;
  const page = (n: number): IndexPage => ({
    items: Array.from({ length: perPage }, (_, i) => {
      const row = (n - 1) * perPage + i + 1;
      return indexRow({ id: `tx_${row}`, description: `Purchase ${row}` });
    }),
    ...(n < pages ? { nextCursor: `p${n + 1}` } : {}),
    freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: Date.now() },
  });
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('cards.list', () => HttpResponse.json({ items: [card()] })),
    serve('index.transactions', async ({ request }) => {
      const query = indexQuerySchema.parse(queryOf(request.url));
      const answer = await options.before?.(query.cursor);
      if (answer) return answer;
      return HttpResponse.json(page(query.cursor ? Number(query.cursor.slice(1)) : 1));
    }),
    serve('index.totals', () =>
      HttpResponse.json({
        summary: indexTotalsOf(Array.from({ length: pages * perPage }, () => indexRow())),
        freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: Date.now() },
      }),
    ),
    serve('transactions.get', ({ params }) =>
      HttpResponse.json(transaction({ id: String(params.id), description: `Detail ${params.id}` })),
    ),
  );
}

/** How many list requests asked for each cursor ("first" for none). */
const listRequestsByCursor = () => {
  const counts: Record<string, number> = {};
  for (const r of requestsTo('/api/index/transactions')) {
    const cursor = new URL(r.url).searchParams.get('cursor') ?? 'first';
    counts[cursor] = (counts[cursor] ?? 0) + 1;
  }
  return counts;
};

const loadMore = () => screen.getByRole('button', { name: 'Load more' });
const loadedCount = () => screen.getByTestId('loaded-count');
const bodyRows = () => document.querySelectorAll('tbody tr:not(.spacer)');
/** The table's scrolling region (the screen's own section shares its name). */
const tableRegion = () => screen.getByRole('table').closest('section') as HTMLElement;

describe('transactions "Load more"', () => {
  it('appends the next page, keeps how many pages are shown in the URL, says which rows show, and stops at the end', async () => {
    serveList({ pages: 3, perPage: 2 });
    const { user, router, history } = renderApp('/transactions', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Purchase 1\b/ });
    expect(loadedCount()).toHaveTextContent('Showing 1–2, more available');
    // Announced as it changes.
    expect(loadedCount().closest('[role="status"]')).not.toBeNull();
    const entries = history.length;

    await user.click(loadMore());
    await screen.findByRole('row', { name: /Purchase 4\b/ });
    expect(screen.getByRole('row', { name: /Purchase 1\b/ })).toBeInTheDocument();
    expect(bodyRows()).toHaveLength(4);
    expect(loadedCount()).toHaveTextContent('Showing 1–4, more available');
    expect(router.state.location.search).toEqual({ pages: '2' });

    await user.click(loadMore());
    await screen.findByRole('row', { name: /Purchase 6\b/ });
    expect(loadedCount()).toHaveTextContent('Showing 1–6, end of list');
    expect(router.state.location.search).toEqual({ pages: '3' });
    // The last page has no cursor after it: nothing more to load. The button's focus moves
    // to the count, not to the top of the page.
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    expect(loadedCount().closest('[role="status"]')).toHaveFocus();
    // Each press replaced the entry: Back leaves the list rather than un-loading a page.
    expect(history.length).toBe(entries);
    expect(screen.queryByRole('navigation', { name: /pages/ })).not.toBeInTheDocument();
    expect(listRequestsByCursor()).toEqual({ first: 1, p2: 1, p3: 1 });
  });

  it('fetches each page once: presses while a page loads do nothing, and the rows stay, marked busy', async () => {
    let release: () => void = () => {};
    const held = new Promise<undefined>((resolve) => {
      release = () => resolve(undefined);
    });
    serveList({ pages: 3, perPage: 2, before: (cursor) => (cursor === 'p2' ? held : undefined) });
    const { user } = renderApp('/transactions', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Purchase 1\b/ });

    await user.click(loadMore());
    await screen.findByText(/Loading more…/);
    // Still focusable and focused (not disabled), but inert until the page arrives.
    expect(loadMore()).toHaveAttribute('aria-disabled', 'true');
    expect(loadMore()).toHaveFocus();
    await user.click(loadMore());
    await user.keyboard('{Enter}');
    expect(tableRegion()).toHaveAttribute('aria-busy', 'true');
    expect(bodyRows()).toHaveLength(2);

    act(() => release());
    await screen.findByRole('row', { name: /Purchase 4\b/ });
    expect(tableRegion()).not.toHaveAttribute('aria-busy');
    expect(loadMore()).not.toHaveAttribute('aria-disabled');
    expect(listRequestsByCursor()).toEqual({ first: 1, p2: 1 });
  });

  it('coming back from a detail shows every loaded row without fetching any page again, even when stale', async () => {
    serveList({ pages: 4, perPage: 2 });
    const { user } = renderApp('/transactions', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Purchase 1\b/ });
    await user.click(loadMore());
    await screen.findByRole('row', { name: /Purchase 4\b/ });

    await user.click(screen.getByRole('link', { name: 'Purchase 3' }));
    await screen.findByRole('heading', { name: 'Detail tx_3' });
    // Long after the data went stale (30 s), a list that holds appended pages is kept as is.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 10 * 60_000);
    await user.click(screen.getByRole('link', { name: '← Back to transactions' }));
    await screen.findByRole('row', { name: /Purchase 4\b/ });
    expect(loadedCount()).toHaveTextContent('Showing 1–4, more available');
    expect(listRequestsByCursor()).toEqual({ first: 1, p2: 1 });
  });

  it('Back and Forward show exactly the rows that were shown, from the cache', async () => {
    serveList({ pages: 5, perPage: 2 });
    const { user, router, history } = renderApp('/transactions', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Purchase 1\b/ });
    await user.click(loadMore());
    await screen.findByRole('row', { name: /Purchase 4\b/ });
    await user.click(loadMore());
    await screen.findByRole('row', { name: /Purchase 6\b/ });

    // A new filter is a new entry, from the first page.
    await user.click(screen.getByText('All statuses'));
    await user.click(screen.getByRole('checkbox', { name: 'Settled' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ status: 'settled' }));
    await waitFor(() => expect(bodyRows()).toHaveLength(2));
    expect(loadedCount()).toHaveTextContent('Showing 1–2, more available');

    act(() => history.back());
    await screen.findByRole('row', { name: /Purchase 6\b/ });
    expect(router.state.location.search).toEqual({ pages: '3' });
    expect(bodyRows()).toHaveLength(6);
    expect(loadedCount()).toHaveTextContent('Showing 1–6, more available');

    act(() => history.forward());
    await waitFor(() => expect(bodyRows()).toHaveLength(2));
    expect(router.state.location.search).toEqual({ status: 'settled' });

    act(() => history.back());
    await screen.findByRole('row', { name: /Purchase 6\b/ });
    expect(bodyRows()).toHaveLength(6);
    // Each list's pages were read once (the first page of each list), whatever the trips.
    expect(listRequestsByCursor()).toEqual({ first: 2, p2: 1, p3: 1 });
  });

  it('a shared link or a reload reads the pages it names from the first, once each', async () => {
    serveList({ pages: 5, perPage: 2 });
    renderApp('/transactions?pages=3', { session: financeSession() });
    await screen.findByRole('row', { name: /Purchase 6\b/ });
    expect(bodyRows()).toHaveLength(6);
    expect(loadedCount()).toHaveTextContent('Showing 1–6, more available');
    expect(listRequestsByCursor()).toEqual({ first: 1, p2: 1, p3: 1 });
  });

  it('a link naming more pages than the list has shows the whole list', async () => {
    serveList({ pages: 2, perPage: 2 });
    const { router } = renderApp('/transactions?pages=9', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Purchase 4\b/ });
    expect(loadedCount()).toHaveTextContent('Showing 1–4, end of list');
    expect(router.state.location.search).toEqual({ pages: '9' });
    expect(listRequestsByCursor()).toEqual({ first: 1, p2: 1 });
  });

  it('stops at the most pages a link may reopen, and says where to look for the rest', async () => {
    serveList({ pages: MAX_PAGES + 5, perPage: 1 });
    const { router } = renderApp(`/transactions?pages=${MAX_PAGES + 30}`, {
      session: financeSession(),
    });
    // Corrected in the address, and said.
    await waitFor(() => expect(router.state.location.search).toEqual({ pages: String(MAX_PAGES) }));
    expect(
      await screen.findByText(
        `The link asked for ${MAX_PAGES + 30} pages; showing the first ${MAX_PAGES}, the most a link reopens.`,
      ),
    ).toBeInTheDocument();
    await screen.findByRole('row', { name: new RegExp(`Purchase ${MAX_PAGES}\\b`) });
    expect(loadedCount()).toHaveTextContent(`Showing 1–${MAX_PAGES}, more available`);
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    expect(
      await screen.findByText(/shows at most 20 pages\. Narrow the dates or filters, or export/),
    ).toBeInTheDocument();
    expect(Object.keys(listRequestsByCursor())).toHaveLength(MAX_PAGES);
  });

  it('a page that fails to load shows the error and a Retry, and keeps the rows shown', async () => {
    let failures = 1;
    serveList({
      pages: 3,
      perPage: 2,
      before: (cursor) => {
        if (cursor !== 'p2' || failures-- <= 0) return undefined;
        return apiError(502, 'upstream_unavailable', 'The card service did not answer.');
      },
    });
    const { user, router } = renderApp('/transactions', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Purchase 1\b/ });
    await user.click(loadMore());

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The card service did not answer.');
    expect(alert).toHaveTextContent('req-upstream_unavailable');
    expect(bodyRows()).toHaveLength(2);
    expect(screen.getByRole('heading', { name: 'Transactions' })).toBeInTheDocument();
    expect(loadedCount()).toHaveTextContent('Showing 1–2, more available');
    // The page did not arrive, so the address still says one page.
    expect(router.state.location.search).toEqual({});

    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    await screen.findByRole('row', { name: /Purchase 4\b/ });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(loadedCount()).toHaveTextContent('Showing 1–4, more available');
    expect(router.state.location.search).toEqual({ pages: '2' });
    expect(listRequestsByCursor()).toEqual({ first: 1, p2: 2 });
  });

  /** The table row an element is in. */
  const rowOf = (element: HTMLElement) => {
    const row = element.closest('tr');
    if (!row) throw new Error(`${element.textContent} is in no table row`);
    return row;
  };

  it("with 500 rows loaded, all of them are in the page for the browser's find, and a row opens its detail", async () => {
    serveList({ pages: 6, perPage: 100 });
    const { user, router } = renderApp('/transactions?pages=5', {
      session: financeSession(),
    });
    await waitFor(() => expect(loadedCount()).toHaveTextContent('Showing 1–500, more available'), {
      timeout: 15_000,
    });
    // Not a virtual window: every row is in the document, so Ctrl+F finds any of them.
    expect(bodyRows()).toHaveLength(500);
    expect(screen.getByText('Purchase 499')).toBeInTheDocument();

    // By keyboard: the row's link is in the tab order and Enter follows it. (Rows are found by
    // their text: a role query names all 500 rows' cells, seconds of jsdom's time each.)
    const row = rowOf(screen.getByText('Purchase 495'));
    within(row).getByRole('link', { name: 'Purchase 495' }).focus();
    await user.keyboard('{Enter}');
    await screen.findByRole('heading', { name: 'Detail tx_495' });
    expect(router.state.location.pathname).toBe('/transactions/tx_495');

    // And by pointer, after coming back to the same rows, none asked for again.
    const asked = Object.values(listRequestsByCursor()).reduce((n, k) => n + k, 0);
    await user.click(screen.getByRole('link', { name: '← Back to transactions' }));
    const first = rowOf(await screen.findByText('Purchase 2'));
    expect(bodyRows()).toHaveLength(500);
    await user.click(within(first).getAllByRole('cell')[2] as HTMLElement);
    await screen.findByRole('heading', { name: 'Detail tx_2' });
    expect(Object.values(listRequestsByCursor()).reduce((n, k) => n + k, 0)).toBe(asked);
    // Five 100-row pages through the real screen in jsdom: a run-time allowance for the work
    // when the whole suite shares two cores, not a speed check.
  }, 30_000);
});
