import {
  type AuditPage,
  type AuditRecord,
  auditActions,
  auditAttempts,
  auditListQuerySchema,
} from '@card-console/shared/api/audit';
import { dayRangeToBounds, localTimeZone } from '@card-console/shared/dates';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { adminSession, auditRecord, card } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { requestsTo, serve, server } from '../../../test/server';
import { inTimeZone } from '../../../test/time-zone';
import { ACTION_LABELS, ATTEMPT_LABELS } from '../audit-labels';

const ZONE = 'America/New_York';
inTimeZone(ZONE);

/** Newest first, as the BFF keeps them. */
const trail: AuditRecord[] = [
  auditRecord({ id: '6', action: 'card.reveal', reason: 'Hotel booking', at: at('2026-03-09') }),
  auditRecord({ id: '5', action: 'card.update', at: at('2026-03-08') }),
  auditRecord({
    id: '4',
    action: 'access.denied',
    attempted: 'card.reveal',
    outcome: 'denied',
    actor: 'finance@example.test',
    role: 'finance',
    cardId: 'card_2',
    last4: '1881',
    before: undefined,
    after: undefined,
    at: at('2026-03-07'),
  }),
  auditRecord({
    id: '3',
    action: 'card.reveal',
    cardId: 'card_2',
    last4: '1881',
    reason: 'Supplier call',
    before: undefined,
    after: undefined,
    at: at('2026-03-05'),
  }),
  auditRecord({
    id: '2',
    action: 'session.signIn',
    cardId: undefined,
    last4: undefined,
    before: undefined,
    after: undefined,
    at: at('2026-03-02'),
  }),
  auditRecord({ id: '1', action: 'card.reveal', reason: 'Old trip', at: at('2026-02-20') }),
];

const cards = [card(), card({ id: 'card_2', name: 'Office supplies', last4: '1881' })];

function at(day: string): string {
  return new Date(`${day}T15:00:00.000Z`).toISOString();
}

/** A BFF stand-in: parses the query as the BFF does, filters, and pages by two (keyset). */
function serveTrail() {
  server.use(
    serve('audit.list', ({ request }) => {
      const { cursor, ...f } = auditListQuerySchema.parse(
        Object.fromEntries(new URL(request.url).searchParams),
      );
      const matching = trail.filter(
        (r) =>
          (f.actor === undefined || r.actor === f.actor) &&
          (f.action === undefined || r.action === f.action) &&
          (f.attempted === undefined || r.attempted === f.attempted) &&
          (f.outcome === undefined || r.outcome === f.outcome) &&
          (f.cardId === undefined || r.cardId === f.cardId) &&
          (f.from === undefined || Date.parse(r.at) >= f.from) &&
          (f.to === undefined || Date.parse(r.at) <= f.to) &&
          (cursor === undefined || Number(r.id) < Number(cursor)),
      );
      const items = matching.slice(0, 2);
      const more = matching.length > 2;
      return HttpResponse.json<AuditPage>({
        items,
        ...(more ? { nextCursor: items.at(-1)?.id } : {}),
      });
    }),
    serve('cards.list', () => HttpResponse.json({ items: cards })),
    serve('cards.get', ({ params }) => HttpResponse.json(cards.find((c) => c.id === params.id))),
  );
}

const lastQuery = () =>
  Object.fromEntries(new URL(requestsTo('/api/audit').at(-1)?.url ?? 'http://x').searchParams);

describe('audit filters', () => {
  it('every action, and every refusal by what it refused, has words on screen and a choice in the filter', async () => {
    serveTrail();
    renderApp('/audit', { session: adminSession() });
    const filter = await screen.findByLabelText('Action');
    expect(Object.keys(ACTION_LABELS).sort()).toEqual([...auditActions].sort());
    expect(Object.keys(ATTEMPT_LABELS).sort()).toEqual([...auditAttempts].sort());
    expect(
      within(filter)
        .getAllByRole('option')
        .map((o) => o.getAttribute('value')),
    ).toEqual([
      '',
      ...auditActions.filter((a) => a !== 'access.denied'),
      'access.denied',
      ...auditAttempts.map((a) => `access.denied:${a}`),
    ]);
    expect(within(filter).getByRole('option', { name: 'Reveal card — denied' })).toHaveValue(
      'access.denied:card.reveal',
    );
  });

  it('a denied action is a filter of its own, in the URL and sent to the BFF', async () => {
    serveTrail();
    const { user, router } = renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Hotel booking/ });
    await user.selectOptions(screen.getByLabelText('Action'), 'Reveal card — denied');
    await waitFor(() =>
      expect(router.state.location.search).toEqual({
        action: 'access.denied',
        attempted: 'card.reveal',
      }),
    );
    await waitFor(() => expect(screen.getAllByRole('row')).toHaveLength(2));
    expect(screen.getByRole('row', { name: /Reveal card — denied/ })).toBeInTheDocument();
    expect(lastQuery()).toEqual({ action: 'access.denied', attempted: 'card.reveal' });
    // Another action leaves the refusal's kind behind.
    await user.selectOptions(screen.getByLabelText('Action'), 'Edit card');
    await waitFor(() => expect(router.state.location.search).toEqual({ action: 'card.update' }));
  });

  it('a link whose refused action does not go with its action opens with the action alone, and says so', async () => {
    serveTrail();
    const { router } = renderApp('/audit?action=card.reveal&attempted=card.update&outcome=maybe', {
      session: adminSession(),
    });
    expect(await screen.findByRole('row', { name: /Hotel booking/ })).toBeInTheDocument();
    expect(router.state.location.search).toEqual({ action: 'card.reveal' });
    expect(lastQuery()).toEqual({ action: 'card.reveal' });
    expect(
      await screen.findByText(/The link's refused action “card.update” was left out/),
    ).toBeInTheDocument();
    expect(screen.getByText(/The link's outcome “maybe” isn't an outcome/)).toBeInTheDocument();
  });

  it("a corrected link's notice is said once: gone from the browser's entry (a reload does not bring it back), and Dismiss hides it", async () => {
    serveTrail();
    // The browser's entry as the router wrote it for the corrected address.
    window.history.replaceState({ __TSR_key: 'k1', rejectedSearch: { outcome: 'maybe' } }, '');
    const { user } = renderApp('/audit?outcome=maybe', { session: adminSession() });
    const notice = await screen.findByText(/The link's outcome “maybe” isn't an outcome/);
    await waitFor(() => expect(window.history.state).toEqual({ __TSR_key: 'k1' }));
    expect(notice).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByText(/The link's outcome “maybe”/)).not.toBeInTheDocument();
    expect(screen.getByRole('row', { name: /Hotel booking/ })).toBeInTheDocument();
  });

  it('"Filters" (folded on a phone) says how many are set and opens the rest', async () => {
    serveTrail();
    const { user } = renderApp('/audit?outcome=success&cardId=card_2&actor=a%40b.test', {
      session: adminSession(),
    });
    const toggle = await screen.findByRole('button', { name: 'Filters (2 set)' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    const more = document.getElementById(toggle.getAttribute('aria-controls') ?? '');
    expect(more).toContainElement(screen.getByLabelText('Outcome'));
    expect(more).not.toContainElement(screen.getByLabelText('Who (email)'));
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(more).toHaveClass('open');
  });

  it('a link with filters opens that view: the fields show them and the BFF is asked for exactly them', async () => {
    serveTrail();
    renderApp(
      '/audit?actor=admin%40example.test&action=card.reveal&outcome=success&cardId=card_2&from=2026-03-01&to=2026-03-06',
      { session: adminSession() },
    );
    const row = await screen.findByRole('row', { name: /Supplier call/ });
    expect(screen.getAllByRole('row')).toHaveLength(2);
    const bounds = dayRangeToBounds('2026-03-01', '2026-03-06', ZONE);
    expect(lastQuery()).toEqual({
      actor: 'admin@example.test',
      action: 'card.reveal',
      outcome: 'success',
      cardId: 'card_2',
      from: String(bounds.from),
      to: String(bounds.to),
    });
    expect(screen.getByLabelText('Who (email)')).toHaveValue('admin@example.test');
    expect(screen.getByLabelText('Action')).toHaveDisplayValue('Reveal card');
    expect(screen.getByLabelText('Outcome')).toHaveDisplayValue('Success');
    expect(screen.getByLabelText('From')).toHaveValue('2026-03-01');
    expect(screen.getByLabelText('To')).toHaveValue('2026-03-06');
    // The one card filtered by is asked for by name, not the whole card list.
    await waitFor(() =>
      expect(screen.getByLabelText('Card')).toHaveDisplayValue('Office supplies (•••• 1881)'),
    );
    expect(requestsTo('/api/cards')).toHaveLength(0);
    // The record's card links to the card, by the name this tab knows it by.
    expect(within(row).getByRole('link', { name: 'Office supplies •••• 1881' })).toHaveAttribute(
      'href',
      '/cards/card_2',
    );
  });

  it('choosing an action and a card narrows the list, each choice a URL of its own; Back and Forward retrace them', async () => {
    serveTrail();
    const { user, router, history } = renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Hotel booking/ });
    expect(lastQuery()).toEqual({});

    await user.selectOptions(screen.getByLabelText('Action'), 'Reveal card');
    await waitFor(() => expect(router.state.location.search).toEqual({ action: 'card.reveal' }));
    await waitFor(() => expect(lastQuery()).toEqual({ action: 'card.reveal' }));
    await waitFor(() =>
      expect(screen.queryByRole('row', { name: /Edit card/ })).not.toBeInTheDocument(),
    );

    // The card filter's choices load when it is opened.
    expect(requestsTo('/api/cards')).toHaveLength(0);
    await user.click(screen.getByLabelText('Card'));
    await screen.findByRole('option', { name: 'Office supplies (•••• 1881)' });
    await user.selectOptions(screen.getByLabelText('Card'), 'card_2');
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ action: 'card.reveal', cardId: 'card_2' }),
    );
    await waitFor(() => expect(screen.getAllByRole('row')).toHaveLength(2));
    expect(screen.getByRole('row', { name: /Supplier call/ })).toBeInTheDocument();
    expect(lastQuery()).toEqual({ action: 'card.reveal', cardId: 'card_2' });

    act(() => history.back());
    await waitFor(() => expect(router.state.location.search).toEqual({ action: 'card.reveal' }));
    expect(await screen.findByRole('row', { name: /Hotel booking/ })).toBeInTheDocument();
    expect(screen.getByLabelText('Card')).toHaveValue('');
    expect(screen.getByLabelText('Action')).toHaveValue('card.reveal');

    act(() => history.forward());
    await waitFor(() => expect(screen.getAllByRole('row')).toHaveLength(2));
    expect(screen.getByRole('row', { name: /Supplier call/ })).toBeInTheDocument();
    expect(screen.getByLabelText('Card')).toHaveValue('card_2');
  });

  it('while the new filter loads, the previous records stay on screen marked busy', async () => {
    serveTrail();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.use(
      serve('audit.list', async ({ request }) => {
        if (new URL(request.url).searchParams.get('outcome') !== 'denied') return undefined;
        await gate;
        return HttpResponse.json<AuditPage>({ items: [trail[2] as AuditRecord] });
      }),
    );
    const { user } = renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Hotel booking/ });
    await user.selectOptions(screen.getByLabelText('Outcome'), 'denied');
    await waitFor(() => expect(lastQuery()).toEqual({ outcome: 'denied' }));
    expect(screen.getByRole('row', { name: /Hotel booking/ })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Audit records table' })).toHaveAttribute(
      'aria-busy',
      'true',
    );
    expect(screen.queryByText('Loading…')).not.toBeInTheDocument();
    release();
    expect(await screen.findByRole('row', { name: /Reveal card — denied/ })).toBeInTheDocument();
    expect(screen.queryByRole('row', { name: /Hotel booking/ })).not.toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Audit records table' })).not.toHaveAttribute(
      'aria-busy',
    );
  });

  it('"Load more" continues within the filters', async () => {
    serveTrail();
    const { user } = renderApp('/audit?action=card.reveal', { session: adminSession() });
    await screen.findByRole('row', { name: /Supplier call/ });
    expect(screen.getByTestId('loaded-count')).toHaveTextContent('Showing 1–2, more available');
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByRole('row', { name: /Old trip/ })).toBeInTheDocument();
    expect(lastQuery()).toEqual({ action: 'card.reveal', cursor: '3' });
    expect(screen.getByTestId('loaded-count')).toHaveTextContent('Showing 1–3, end of list');
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    expect(screen.getAllByRole('row')).toHaveLength(4);
  });

  it('the email is applied with Enter, trimmed and in lower case; half an address is refused in words', async () => {
    serveTrail();
    const { user, router } = renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Hotel booking/ });
    const who = screen.getByLabelText('Who (email)');
    const before = requestsTo('/api/audit').length;
    await user.type(who, 'finance@{Enter}');
    expect(await screen.findByText(/Enter one whole email address/)).toBeInTheDocument();
    expect(who).toHaveAttribute('aria-invalid', 'true');
    expect(router.state.location.search).toEqual({});
    expect(requestsTo('/api/audit')).toHaveLength(before);

    await user.clear(who);
    await user.type(who, '  Finance@Example.TEST {Enter}');
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ actor: 'finance@example.test' }),
    );
    await waitFor(() => expect(screen.getAllByRole('row')).toHaveLength(2));
    expect(screen.getByRole('row', { name: /Reveal card — denied/ })).toBeInTheDocument();
    expect(lastQuery()).toEqual({ actor: 'finance@example.test' });
    expect(screen.queryByText(/Enter one whole email address/)).not.toBeInTheDocument();
  });

  it('the email applies by itself once typing pauses on a whole address, like the other filters, and goes into the URL', async () => {
    serveTrail();
    const { user, router } = renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Hotel booking/ });
    expect(screen.queryByRole('button', { name: 'Apply' })).not.toBeInTheDocument();
    const who = screen.getByLabelText('Who (email)');
    const before = requestsTo('/api/audit').length;
    await user.type(who, 'finance@');
    await new Promise((resolve) => setTimeout(resolve, 700));
    // Half an address is not applied, and said so only once the person leaves the field.
    expect(router.state.location.search).toEqual({});
    expect(requestsTo('/api/audit')).toHaveLength(before);
    expect(screen.queryByText(/Enter one whole email address/)).not.toBeInTheDocument();
    await user.tab();
    expect(screen.getByText(/Enter one whole email address/)).toBeInTheDocument();

    await user.type(who, 'Example.test');
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ actor: 'finance@example.test' }),
    );
    await waitFor(() => expect(screen.getAllByRole('row')).toHaveLength(2));
    expect(lastQuery()).toEqual({ actor: 'finance@example.test' });
    expect(screen.queryByText(/Enter one whole email address/)).not.toBeInTheDocument();

    // Emptying the field shows everyone again.
    await user.clear(who);
    await waitFor(() => expect(router.state.location.search).toEqual({}));
  });

  it('an email typed but not yet applied goes along with the next choice', async () => {
    serveTrail();
    const { user, router } = renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Hotel booking/ });
    await user.type(screen.getByLabelText('Who (email)'), 'finance@example.test');
    await user.selectOptions(screen.getByLabelText('Outcome'), 'denied');
    await waitFor(() =>
      expect(router.state.location.search).toEqual({
        actor: 'finance@example.test',
        outcome: 'denied',
      }),
    );
  });

  it("sends the chosen days as inclusive Unix-ms bounds in the person's time zone, and refuses them in the wrong order", async () => {
    serveTrail();
    expect(localTimeZone()).toBe(ZONE);
    const { router, user } = renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Hotel booking/ });
    expect(screen.queryByLabelText('From')).not.toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Period'), 'custom');
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-03-05' } });
    await waitFor(() => expect(router.state.location.search).toEqual({ from: '2026-03-05' }));
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-03-08' } });
    // 8 March 2026 is the day New York moves its clocks forward: a 23-hour day.
    const expected = dayRangeToBounds('2026-03-05', '2026-03-08', ZONE);
    await waitFor(() =>
      expect(lastQuery()).toEqual({ from: String(expected.from), to: String(expected.to) }),
    );
    expect((expected.to ?? 0) - (expected.from ?? 0) + 1).toBe((4 * 24 - 1) * 3_600_000);
    await waitFor(() =>
      expect(screen.queryByRole('row', { name: /Hotel booking/ })).not.toBeInTheDocument(),
    );
    expect(screen.getByRole('row', { name: /Edit card/ })).toBeInTheDocument();

    const asked = requestsTo('/api/audit').length;
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-03-09' } });
    // The day typed stays, the message names what to change, and the list waits.
    expect(screen.getByRole('alert')).toHaveTextContent(/^From \(Mar 9, 2026\) is after To/);
    expect(screen.getByLabelText('From')).toHaveValue('2026-03-09');
    expect(router.state.location.search).toEqual({ from: '2026-03-05', to: '2026-03-08' });
    expect(requestsTo('/api/audit')).toHaveLength(asked);
  });

  it('"This week" is kept by name in the URL and asks for Monday to today in the person\'s zone', async () => {
    serveTrail();
    const { router, user } = renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Hotel booking/ });
    await user.selectOptions(screen.getByLabelText('Period'), 'this-week');
    await waitFor(() => expect(router.state.location.search).toEqual({ period: 'this-week' }));
    // Worked out here from the calendar, not by the screen's own preset code.
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());
    const [y, m, d] = today.split('-').map(Number) as [number, number, number];
    const sinceMonday = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
    const monday = new Date(Date.UTC(y, m - 1, d - sinceMonday)).toISOString().slice(0, 10);
    const expected = dayRangeToBounds(monday, today, ZONE);
    await waitFor(() =>
      expect(lastQuery()).toEqual({ from: String(expected.from), to: String(expected.to) }),
    );
    // A link with the preset opens it, the Period showing it and no day fields.
    expect(screen.getByLabelText('Period')).toHaveValue('this-week');
    expect(screen.queryByLabelText('From')).not.toBeInTheDocument();
  });

  it('nothing matching says so, and "Clear filters" shows the whole trail again', async () => {
    serveTrail();
    const { user, router } = renderApp('/audit?action=subAccount.create&actor=x%40y.test', {
      session: adminSession(),
    });
    expect(await screen.findByText('No records match these filters.')).toBeInTheDocument();
    expect(screen.queryByText('Nothing has been recorded yet.')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(router.state.location.search).toEqual({}));
    expect(await screen.findByRole('row', { name: /Hotel booking/ })).toBeInTheDocument();
    expect(lastQuery()).toEqual({});
    expect(screen.getByLabelText('Who (email)')).toHaveValue('');
    expect(screen.getByLabelText('Action')).toHaveValue('');
    // With nothing to clear, there is no such button.
    expect(screen.queryByRole('button', { name: 'Clear filters' })).not.toBeInTheDocument();
  });

  it('a mangled link still opens: values the BFF would refuse are left out', async () => {
    serveTrail();
    const { router } = renderApp(
      '/audit?action=card.delete&outcome=maybe&actor=not-an-email&cardId=a%00b&from=2026-03-09&to=2026-03-01',
      { session: adminSession() },
    );
    expect(await screen.findByRole('row', { name: /Hotel booking/ })).toBeInTheDocument();
    expect(lastQuery()).toEqual({});
    expect(router.state.location.search).toEqual({});
  });

  it('a day that does not exist and an over-long email are left out, the good filters kept', async () => {
    serveTrail();
    renderApp(`/audit?from=2026-02-30&actor=${'a'.repeat(250)}%40b.test&outcome=denied`, {
      session: adminSession(),
    });
    expect(await screen.findByRole('row', { name: /Reveal card — denied/ })).toBeInTheDocument();
    expect(lastQuery()).toEqual({ outcome: 'denied' });
  });
});
