import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';
import { alertRule, inboxOfEachKind, serveInbox, serveUnread } from '../test/alert-fixtures';

const NOW = Date.parse('2026-03-15T15:05:00Z');

beforeEach(() => {
  server.use(serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })));
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});

const bell = (name: string | RegExp) => screen.findByRole('button', { name });

describe('the bell in the top bar', () => {
  it('says how many alerts are unread, in its name and its badge, asked as a background poll', async () => {
    serveUnread(3);
    renderApp('/sub-accounts', { session: financeSession() });
    const button = await bell('Alerts, 3 unread');
    expect(button).toHaveTextContent('3');
    const [asked] = requestsTo('/api/alerts/inbox/unread-count');
    expect(asked?.headers.get('X-Background')).toBe('1');
  });

  it('shows 99+ above 99, in its name too (what is seen is said); its title has the whole number', async () => {
    serveUnread(1_234);
    renderApp('/sub-accounts', { session: financeSession() });
    const button = await bell('Alerts, 99+ unread');
    expect(button).toHaveTextContent('99+');
    expect(button).toHaveAttribute('title', 'Alerts, 1,234 unread');
    expect(button).not.toHaveTextContent('1,234');
  });

  it('has no badge when nothing is unread', async () => {
    serveUnread(0);
    renderApp('/sub-accounts', { session: financeSession() });
    const button = await bell('Alerts');
    expect(button.textContent).toBe('');
  });
});

describe('the inbox', () => {
  it('lists each kind of alert in one line, newest first, unread marked, linking to what it is about', async () => {
    serveUnread(4);
    serveInbox([inboxOfEachKind]);
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    await user.click(await bell('Alerts, 4 unread'));
    const dialog = await screen.findByRole('dialog', { name: 'Alerts' });
    const list = await within(dialog).findByRole('list', { name: 'Alerts, newest first' });
    const links = within(list).getAllByRole('link');
    expect(links.map((l) => l.textContent)).toEqual([
      'Unread: Declined · Blue Taxi $12.40 · Card paused5 minutes ago',
      'Over $500 · Oak Suites $812.005 minutes ago',
      'Unread: Card ••••4242 at 85% of its limit ($850.00 of $1,000.00)5 minutes ago',
      'Unread: New category for card Travel ••••4242: Taxicabs5 minutes ago',
      'Unread: Operations balance under $1,000.005 minutes ago',
    ]);
    expect(links.map((l) => new URL(l.getAttribute('href') ?? '', 'http://x').pathname)).toEqual([
      '/transactions/tx_1',
      '/transactions/tx_2',
      '/cards/card_1',
      '/transactions/tx_4',
      '/sub-accounts',
    ]);
    expect(within(dialog).getByRole('link', { name: 'Alert rules' })).toHaveAttribute(
      'href',
      '/alerts',
    );
  });

  it("names the merchant by its name when the alert carries one, the network's text otherwise", async () => {
    serveUnread(1);
    const [declined] = inboxOfEachKind;
    if (declined?.kind !== 'declined') throw new Error('no declined fixture');
    serveInbox([
      [{ ...declined, merchant: 'SQ *BLUE TAXI BOSTON MA', merchantName: 'Blue Taxi Co' }],
    ]);
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    await user.click(await bell('Alerts, 1 unread'));
    const list = await screen.findByRole('list', { name: 'Alerts, newest first' });
    const [link] = within(list).getAllByRole('link');
    expect(link?.textContent).toContain('Declined · Blue Taxi Co $12.40');
  });

  it('a test alert says it is one, of which rule, and opens the alert rules', async () => {
    serveUnread(1);
    const [declined] = inboxOfEachKind;
    if (declined?.kind !== 'declined') throw new Error('no declined fixture');
    const test = { ...declined, id: 'al_test', ruleName: 'Travel declines', test: true };
    serveInbox([[{ ...test, transactionId: 'example' }]]);
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    await user.click(await bell('Alerts, 1 unread'));
    const list = await screen.findByRole('list', { name: 'Alerts, newest first' });
    const [link] = within(list).getAllByRole('link');
    expect(link?.textContent).toBe(
      'Unread: Test of “Travel declines” · Declined · Blue Taxi $12.40 · Card paused5 minutes ago',
    );
    expect(link).toHaveAttribute('href', '/alerts');
  });

  it('Mark all read tells the BFF and the badge takes the count it answers', async () => {
    serveUnread(4);
    serveInbox([inboxOfEachKind]);
    server.use(serve('alerts.markRead', () => HttpResponse.json({ marked: 4, unread: 0 })));
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    await user.click(await bell('Alerts, 4 unread'));
    const dialog = await screen.findByRole('dialog', { name: 'Alerts' });
    await within(dialog).findByRole('list');
    await user.click(within(dialog).getByRole('button', { name: 'Mark all read' }));
    await waitFor(() => expect(requestsTo('/api/alerts/inbox/read', 'POST')).toHaveLength(1));
    const [sent] = requestsTo('/api/alerts/inbox/read', 'POST');
    expect(await sent?.json()).toEqual({ all: true });
    expect(await bell('Alerts')).toHaveTextContent('');
  });

  it('opening an unread alert marks it read and closes the inbox', async () => {
    serveUnread(4);
    serveInbox([inboxOfEachKind]);
    server.use(
      serve('alerts.markRead', () => HttpResponse.json({ marked: 1, unread: 3 })),
      serve('transactions.get', () => apiError(404, 'not_found', 'No such transaction')),
    );
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    await user.click(await bell('Alerts, 4 unread'));
    const dialog = await screen.findByRole('dialog', { name: 'Alerts' });
    await user.click(await within(dialog).findByRole('link', { name: /Blue Taxi/ }));
    await waitFor(() => expect(requestsTo('/api/alerts/inbox/read', 'POST')).toHaveLength(1));
    expect(await requestsTo('/api/alerts/inbox/read', 'POST')[0]?.json()).toEqual({
      ids: ['al_1'],
    });
    expect(screen.queryByRole('dialog', { name: 'Alerts' })).toBeNull();
    expect(await bell('Alerts, 3 unread')).toBeInTheDocument();
  });

  it('Load more asks for the next page by its cursor and adds it', async () => {
    serveUnread(1);
    serveInbox([inboxOfEachKind.slice(0, 2), inboxOfEachKind.slice(2)]);
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    await user.click(await bell('Alerts, 1 unread'));
    const dialog = await screen.findByRole('dialog', { name: 'Alerts' });
    const list = await within(dialog).findByRole('list');
    expect(within(list).getAllByRole('listitem')).toHaveLength(2);
    await user.click(within(dialog).getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(5));
    const cursors = requestsTo('/api/alerts/inbox').map((r) =>
      new URL(r.url).searchParams.get('cursor'),
    );
    expect(cursors).toEqual([null, 'page1']);
    expect(within(dialog).queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it.each([
    [
      'no rule',
      [],
      'No alerts yet. Set up alert rules to hear about declines, large charges and low balances.',
    ],
    [
      'a rule that is off, and one that sends by email only',
      [
        alertRule({ enabled: false }),
        alertRule({ id: 'rule_2', channels: { inbox: false, email: true, webhookTargetId: null } }),
      ],
      'No alerts yet. None of your alert rules is on and sends here: turn one on, or its inbox, to hear about declines, large charges and low balances.',
    ],
    [
      'one rule on, sending here',
      [alertRule()],
      'No alerts yet. One alert rule is on and sends here: an alert comes when a transaction Card Console reads from the card service matches it.',
    ],
    [
      'two rules on, one of them the team’s, and one off',
      [
        alertRule(),
        alertRule({ id: 'rule_t', team: true }),
        alertRule({ id: 'r3', enabled: false }),
      ],
      'No alerts yet. 2 alert rules are on and send here: an alert comes when a transaction Card Console reads from the card service matches one.',
    ],
  ] as const)('with no alert, says what the rules do: %s', async (_case, rules, said) => {
    serveUnread(0);
    serveInbox([[]]);
    server.use(serve('alerts.rules', () => HttpResponse.json({ items: rules })));
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    await user.click(await bell('Alerts'));
    const dialog = await screen.findByRole('dialog', { name: 'Alerts' });
    await waitFor(() =>
      expect(
        within(dialog)
          .getByText(/^No alerts yet/)
          .textContent?.replace(/\s+/g, ' '),
      ).toBe(said),
    );
    // The rules are a link away (in the sentence, or beside Mark all read), which closes it.
    const links = within(dialog).getAllByRole('link', { name: /^alert rules$/i });
    await user.click(links.at(-1) as HTMLElement);
    expect(await screen.findByRole('heading', { level: 1, name: 'Alert rules' })).toBeVisible();
    expect(screen.queryByRole('dialog', { name: 'Alerts' })).toBeNull();
  });

  it('says when there are no alerts; Escape closes it and gives focus back to the bell', async () => {
    serveUnread(0);
    serveInbox([[]]);
    server.use(serve('alerts.rules', () => HttpResponse.json({ items: [] })));
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    const button = await bell('Alerts');
    await user.click(button);
    const dialog = await screen.findByRole('dialog', { name: 'Alerts' });
    expect(await within(dialog).findByText(/No alerts yet/)).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Mark all read' })).toHaveAttribute(
      'aria-disabled',
      'true',
    );
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(button);
  });

  it('a failed inbox says so with a Retry that loads it', async () => {
    serveUnread(1);
    server.use(
      serve('alerts.inbox', () => apiError(500, 'internal_error', 'Inbox unavailable'), {
        once: true,
      }),
    );
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    await user.click(await bell('Alerts, 1 unread'));
    const dialog = await screen.findByRole('dialog', { name: 'Alerts' });
    expect(await within(dialog).findByText('Inbox unavailable')).toBeInTheDocument();
    serveInbox([inboxOfEachKind.slice(0, 1)]);
    await user.click(within(dialog).getByRole('button', { name: 'Retry' }));
    expect(await within(dialog).findByRole('link', { name: /Blue Taxi/ })).toBeInTheDocument();
  });
});
