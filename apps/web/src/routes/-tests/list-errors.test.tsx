import type { EndpointName } from '@card-console/shared/contract/routes';
import { screen, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { adminSession, card, quietOverview, subAccounts } from '../../test/fixtures';
import { renderApp } from '../../test/render-app';
import { indexRow, indexTotalsOf, serveIndex } from '../../test/serve-index';
import { apiError, serve, server } from '../../test/server';

/** Answers 500 with a request id, `times` times, then as `ok` does. */
function failing(times: number, ok: () => Response) {
  let left = times;
  return () =>
    left-- > 0
      ? HttpResponse.json(
          { error: 'boom' },
          { status: 500, headers: { 'X-Request-Id': 'req-list-x7' } },
        )
      : ok();
}

function serveTheRest() {
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('cards.list', () => HttpResponse.json({ items: [card()] })),
    serve('overview.get', () => HttpResponse.json(quietOverview())),
  );
  serveIndex([indexRow()]);
}

interface Screen {
  path: string;
  heading: string;
  /** The list's endpoint, made to fail. */
  list: EndpointName;
  ok: () => Response;
  /** A control the URL set, and the value it must still show. */
  control: string;
  value: string | null;
  /** What shows once the list has loaded. */
  loaded: () => Promise<HTMLElement>;
}

const screens: Screen[] = [
  {
    path: '/transactions?subAccountId=sa_ops&q=coffee',
    heading: 'Transactions',
    list: 'index.transactions',
    ok: () =>
      HttpResponse.json({
        items: [indexRow()],
        summary: indexTotalsOf([indexRow()]),
        freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: 1_772_000_000_000 },
      }),
    control: 'Sub account',
    value: 'sa_ops',
    loaded: () => screen.findByRole('row', { name: /Coffee beans/ }),
  },
  {
    path: '/cards?sort=name&direction=asc',
    heading: 'Cards',
    list: 'cards.list',
    ok: () => HttpResponse.json({ items: [card()] }),
    control: 'Sort by',
    value: 'name',
    loaded: () => screen.findByRole('link', { name: 'Travel card' }),
  },
  {
    path: '/sub-accounts',
    heading: 'Sub accounts',
    list: 'subAccounts.list',
    ok: () => HttpResponse.json({ items: subAccounts }),
    control: '',
    value: null,
    loaded: () => screen.findByRole('row', { name: /Operations/ }),
  },
  {
    path: '/overview?period=90d&subAccountId=sa_mkt',
    heading: 'Overview',
    list: 'overview.get',
    ok: () => HttpResponse.json(quietOverview()),
    control: 'Period',
    value: '90d',
    loaded: () => screen.findByText('Card spend', { selector: 'dt' }),
  },
];

describe('a failed list shows in its place, the screen and its filters kept', () => {
  it.each(screens)(
    '$path: plain words and the request id, not "500"; Retry loads it',
    async (s) => {
      serveTheRest();
      server.use(serve(s.list, failing(1, s.ok)));
      const { user, router } = renderApp(s.path, { session: adminSession() });
      const alert = await screen.findByRole('alert');
      expect(alert).toHaveTextContent('Something went wrong on our side');
      expect(alert).toHaveTextContent('req-list-x7');
      expect(alert).not.toHaveTextContent(/500|Internal Server Error/);
      expect(screen.getByRole('heading', { level: 1, name: s.heading })).toBeInTheDocument();
      if (s.control) expect(screen.getByLabelText(s.control)).toHaveValue(s.value);
      const before = router.state.location.href;

      await user.click(within(alert).getByRole('button', { name: 'Retry' }));
      expect(await s.loaded()).toBeInTheDocument();
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
      expect(router.state.location.href).toBe(before);
    },
  );

  it("no connection: said in the list's place, the filters kept; Retry loads it", async () => {
    serveTheRest();
    let down = true;
    server.use(
      serve('cards.list', () =>
        down ? HttpResponse.error() : HttpResponse.json({ items: [card()] }),
      ),
    );
    const { user } = renderApp('/cards?sort=name', { session: adminSession() });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('No connection');
    expect(screen.getByLabelText('Sort by')).toHaveValue('name');
    down = false;
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('link', { name: 'Travel card' })).toBeInTheDocument();
  });

  it('the sub accounts keep "Create sub account" while their list has failed', async () => {
    server.use(
      serve(
        'subAccounts.list',
        failing(1, () => HttpResponse.json({ items: [] })),
      ),
    );
    renderApp('/sub-accounts', { session: adminSession() });
    await screen.findByRole('alert');
    expect(screen.getByRole('button', { name: 'Create sub account' })).toBeInTheDocument();
  });

  it('a dead end (404) still fails the route, with a way on and no Retry', async () => {
    serveTheRest();
    server.use(serve('cards.list', () => apiError(404, 'not_found', 'No such list.')));
    renderApp('/cards?status=active', { session: adminSession() });
    expect(await screen.findByRole('heading', { level: 1, name: 'Not found' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Sort by')).not.toBeInTheDocument();
  });
});
