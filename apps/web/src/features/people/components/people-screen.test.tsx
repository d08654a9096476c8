import type { PeopleList, PersonView } from '@card-console/shared/api/people';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { adminSession, financeSession } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { requestsTo, serve, server } from '../../../test/server';
import { person, problem, somePeople } from '../test/people-fixtures';

function servePeople(list: PeopleList = somePeople) {
  server.use(serve('people.list', () => HttpResponse.json(list)));
}

/** A person's row in the people table (not the invitations'). */
const rowOf = (email: string) =>
  within(
    within(screen.getByRole('table', { name: 'People who may sign in' }))
      .getByRole('rowheader', { name: new RegExp(`^${email}`) })
      .closest('tr') as HTMLElement,
  );

async function openPeople() {
  const view = renderApp('/people', { session: adminSession() });
  await screen.findByRole('heading', { level: 1, name: 'People' });
  await screen.findByRole('table', { name: 'People who may sign in' });
  return view;
}

describe('people', () => {
  it('lists everyone with role, status, how they came, last sign-in and sessions; "You" marks the caller', async () => {
    servePeople();
    await openPeople();
    expect(document.title).toBe('People · Card Console');
    const table = screen.getByRole('table', { name: 'People who may sign in' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(4);

    const me = rowOf('admin@example.test');
    expect(me.getByText('You')).toBeInTheDocument();
    expect(me.getByRole('combobox', { name: 'Role of admin@example.test' })).toHaveValue('admin');
    expect(me.getByText('Active')).toBeInTheDocument();
    expect(me.getByText('Set up by the operator')).toBeInTheDocument();
    expect(me.getByText('with passkey')).toBeInTheDocument();
    expect(me.getByRole('cell', { name: '2' })).toBeInTheDocument();
    // One's own row is neither disabled nor removed from here.
    expect(me.queryByRole('button', { name: /Disable|Remove/ })).toBeNull();
    expect(me.getByRole('button', { name: 'Sessions of admin@example.test' })).toBeInTheDocument();

    const fin = rowOf('fin@example.test');
    expect(fin.getByText('Invitation')).toBeInTheDocument();
    expect(fin.getByText('with password')).toBeInTheDocument();
    expect(fin.queryByText('You')).toBeNull();
    expect(fin.getByRole('button', { name: 'Disable fin@example.test' })).toBeInTheDocument();
    expect(fin.getByRole('button', { name: 'Remove fin@example.test' })).toBeInTheDocument();

    // Single sign-on: the role is the provider's, shown and not offered for change.
    const sso = rowOf('sso@example.test');
    expect(sso.queryByRole('combobox')).toBeNull();
    expect(sso.getByText('set by your identity provider')).toBeInTheDocument();
    expect(sso.getByText('Disabled')).toBeInTheDocument();
    expect(sso.getByText('Single sign-on')).toBeInTheDocument();
    expect(sso.getByText('Never')).toBeInTheDocument();
    expect(sso.getByRole('button', { name: 'Enable sso@example.test' })).toBeInTheDocument();

    expect(rowOf('later@example.test').getByText('Invited')).toBeInTheDocument();

    const invitations = screen.getByRole('table', { name: 'Invitations not yet taken up' });
    const open = within(within(invitations).getAllByRole('row')[1] as HTMLElement);
    expect(open.getByText('later@example.test')).toBeInTheDocument();
    expect(open.getByText('admin@example.test')).toBeInTheDocument();
    expect(
      open.getByRole('button', { name: 'Withdraw the invitation for later@example.test' }),
    ).toBeInTheDocument();

    // The admins' navigation has the entry, marked as the current page.
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'People' })).toHaveAttribute(
      'aria-current',
      'page',
    );
  });

  it('is for admins: finance has no entry, and the address says so without asking the BFF', async () => {
    renderApp('/people', { session: financeSession() });
    expect(await screen.findByText('People are managed by admins.')).toBeInTheDocument();
    expect(
      within(screen.getByRole('navigation', { name: 'Main' })).queryByRole('link', {
        name: 'People',
      }),
    ).toBeNull();
    expect(requestsTo('/api/people')).toHaveLength(0);
  });

  it('"g p" goes to People for an admin', async () => {
    servePeople();
    server.use(serve('subAccounts.list', () => HttpResponse.json({ items: [] })));
    const { user } = renderApp('/sub-accounts', { session: adminSession() });
    await screen.findByRole('heading', { name: 'Sub accounts' });
    await user.keyboard('gp');
    expect(await screen.findByRole('heading', { level: 1, name: 'People' })).toBeVisible();
  });

  it('a failed list shows in its place with Retry, Invite kept', async () => {
    let calls = 0;
    server.use(
      serve('people.list', () => {
        calls += 1;
        return calls === 1
          ? problem(503, 'store_unavailable', 'The store is not answering.')
          : HttpResponse.json(somePeople);
      }),
    );
    const { user } = renderApp('/people', { session: adminSession() });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The service is busy');
    expect(screen.getByRole('button', { name: 'Invite someone' })).toBeInTheDocument();
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('table', { name: 'People who may sign in' })).toBeVisible();
  });

  it('invites: sends email, role and days, then shows the link once with Copy', async () => {
    servePeople();
    const link = 'http://localhost:3000/join#Aq3v-_ThisIsTheOneTimeTokenOfFortyThreeCh';
    server.use(
      serve('people.invite', () =>
        HttpResponse.json(
          {
            email: 'ann@example.test',
            role: 'admin',
            expiresAt: '2026-12-01T09:00:00Z',
            link,
            emailed: false,
          },
          { status: 201 },
        ),
      ),
    );
    const { user } = await openPeople();
    await user.click(screen.getByRole('button', { name: 'Invite someone' }));
    let dialog = within(screen.getByRole('dialog', { name: 'Invite someone' }));
    // The shared schema's words, and nothing sent.
    await user.type(dialog.getByLabelText('Email'), 'not an email');
    await user.clear(dialog.getByLabelText('Link stays open (days)'));
    await user.type(dialog.getByLabelText('Link stays open (days)'), '45');
    await user.click(dialog.getByRole('button', { name: 'Invite' }));
    expect(dialog.getByLabelText('Email')).toHaveAccessibleDescription(
      'email must be an email address',
    );
    expect(dialog.getByLabelText('Link stays open (days)')).toHaveAccessibleDescription(
      'From 1 to 30. days must be at most 30',
    );
    expect(requestsTo('/api/people/invitations', 'POST')).toHaveLength(0);

    await user.clear(dialog.getByLabelText('Email'));
    await user.type(dialog.getByLabelText('Email'), ' Ann@Example.test ');
    await user.selectOptions(dialog.getByLabelText('Role'), 'admin');
    await user.clear(dialog.getByLabelText('Link stays open (days)'));
    await user.type(dialog.getByLabelText('Link stays open (days)'), '3');
    await user.click(dialog.getByRole('button', { name: 'Invite' }));

    const shown = within(
      await screen.findByRole('dialog', { name: 'ann@example.test is invited' }),
    );
    expect(await requestsTo('/api/people/invitations', 'POST')[0]?.json()).toEqual({
      email: 'ann@example.test',
      role: 'admin',
      days: 3,
    });
    expect(shown.getByLabelText('Invitation link')).toHaveValue(link);
    expect(shown.getByText(/It is shown only now: copy it before closing/)).toBeInTheDocument();
    await user.click(shown.getByRole('button', { name: 'Copy' }));
    expect(await navigator.clipboard.readText()).toBe(link);
    expect(shown.getByText('Copied.')).toBeInTheDocument();

    // Closed, the link is gone: a new invitation starts from an empty form.
    await user.click(shown.getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByDisplayValue(link)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Invite someone' }));
    dialog = within(screen.getByRole('dialog', { name: 'Invite someone' }));
    expect(dialog.getByLabelText('Email')).toHaveValue('');
    expect(screen.queryByDisplayValue(link)).toBeNull();
  });

  it("someone already here (409 person_exists) is said in the invite dialog, in the BFF's words: disabled, enable them", async () => {
    servePeople();
    const detail =
      'fin@example.test is already in Card Console, disabled: enable them instead of inviting them.';
    server.use(serve('people.invite', () => problem(409, 'person_exists', detail)));
    const { user } = await openPeople();
    await user.click(screen.getByRole('button', { name: 'Invite someone' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Invite someone' }));
    await user.type(dialog.getByLabelText('Email'), 'fin@example.test');
    await user.click(dialog.getByRole('button', { name: 'Invite' }));
    expect(await dialog.findByRole('alert')).toHaveTextContent(detail);
  });

  it('the last admin (409 last_admin) is said in plain words and the role stays', async () => {
    servePeople();
    server.use(
      serve('people.setRole', () => problem(409, 'last_admin', 'There must be an admin.')),
    );
    const { user } = await openPeople();
    const role = screen.getByRole('combobox', { name: 'Role of admin@example.test' });
    await user.selectOptions(role, 'finance');
    // A choice asks first, saying what the role means; nothing is sent until it is confirmed.
    const ask = await screen.findByRole('dialog', { name: 'Make admin@example.test finance?' });
    expect(ask).toHaveTextContent('change no card, person or policy');
    expect(requestsTo('/api/people/admin%40example.test/role', 'PUT')).toHaveLength(0);
    await user.click(within(ask).getByRole('button', { name: 'Make finance' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'admin@example.test is the last admin: make someone else an admin first.',
    );
    expect(await requestsTo('/api/people/admin%40example.test/role', 'PUT')[0]?.json()).toEqual({
      role: 'finance',
    });
    await waitFor(() =>
      expect(screen.getByRole('combobox', { name: 'Role of admin@example.test' })).toHaveValue(
        'admin',
      ),
    );
  });

  it('a role the identity provider sets (409 role_from_provider) is said in plain words', async () => {
    servePeople();
    server.use(
      serve('people.setRole', () =>
        problem(409, 'role_from_provider', 'Single sign-on sets this role.'),
      ),
    );
    const { user } = await openPeople();
    await user.selectOptions(
      screen.getByRole('combobox', { name: 'Role of fin@example.test' }),
      'admin',
    );
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Make fin@example.test admin?' })).getByRole(
        'button',
        { name: 'Make admin' },
      ),
    );
    expect(await screen.findByRole('alert')).toHaveTextContent(
      "fin@example.test's role is set by your identity provider: change it there.",
    );
  });

  it('a role choice cancelled changes nothing: the row shows the role it had', async () => {
    servePeople();
    const { user } = await openPeople();
    const role = screen.getByRole('combobox', { name: 'Role of fin@example.test' });
    await user.selectOptions(role, 'admin');
    const ask = await screen.findByRole('dialog', { name: 'Make fin@example.test admin?' });
    await user.click(within(ask).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(role).toHaveValue('finance');
    expect(requestsTo('/api/people/fin%40example.test/role', 'PUT')).toHaveLength(0);
  });

  it('withdraws an open invitation', async () => {
    let list = somePeople;
    server.use(
      serve('people.list', () => HttpResponse.json(list)),
      serve('people.cancelInvitation', () => {
        list = { ...list, invitations: [] };
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const { user } = await openPeople();
    await user.click(
      screen.getByRole('button', { name: 'Withdraw the invitation for later@example.test' }),
    );
    expect(await screen.findByRole('status')).toHaveTextContent(
      'The invitation for later@example.test is withdrawn: its link no longer works.',
    );
    expect(requestsTo('/api/people/invitations/later%40example.test', 'DELETE')).toHaveLength(1);
    expect(await screen.findByText('No open invitations.')).toBeInTheDocument();
  });

  it('asks for a second factor when the BFF wants one (step_up_required), then makes the change once more', async () => {
    let list = somePeople;
    servePeople();
    server.use(
      serve('people.list', () => HttpResponse.json(list)),
      serve('people.disable', ({ request }) => {
        if (requestsTo(new URL(request.url).pathname, 'POST').length === 1) {
          return problem(401, 'step_up_required', 'Confirm it is you first.', {
            secondFactor: { methods: ['totp'] },
          });
        }
        const changed = person({ email: 'fin@example.test', disabled: true });
        list = {
          ...list,
          people: list.people.map((p) => (p.email === changed.email ? changed : p)),
        };
        return HttpResponse.json(changed);
      }),
      serve('session.stepUp', () => HttpResponse.json(adminSession())),
    );
    const { user } = await openPeople();
    await user.click(screen.getByRole('button', { name: 'Disable fin@example.test' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Confirm it is you' }));
    await user.type(dialog.getByLabelText('Second-factor code'), '123456');

    expect(await screen.findByRole('status')).toHaveTextContent(
      'fin@example.test is disabled: they cannot sign in, and their sessions ended.',
    );
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(await requestsTo('/api/session/step-up', 'POST')[0]?.json()).toEqual({ totp: '123456' });
    expect(requestsTo('/api/people/fin%40example.test/disable', 'POST')).toHaveLength(2);
    expect(await rowOf('fin@example.test').findByText('Disabled')).toBeInTheDocument();
  });

  it('closing the second-factor check makes no change and says nothing went wrong', async () => {
    servePeople();
    server.use(
      serve('people.disable', () =>
        problem(401, 'step_up_required', 'Confirm it is you first.', {
          secondFactor: { methods: ['totp'] },
        }),
      ),
    );
    const { user } = await openPeople();
    await user.click(screen.getByRole('button', { name: 'Disable fin@example.test' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Confirm it is you' }));
    await user.click(dialog.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(requestsTo('/api/people/fin%40example.test/disable', 'POST')).toHaveLength(1);
  });

  it('removes someone after a dialog naming them; the last admin is refused there', async () => {
    servePeople();
    let calls = 0;
    server.use(
      serve('people.remove', () => {
        calls += 1;
        return calls === 1
          ? problem(409, 'last_admin', 'There must be an admin.')
          : new HttpResponse(null, { status: 204 });
      }),
    );
    const { user } = await openPeople();
    await user.click(screen.getByRole('button', { name: 'Remove fin@example.test' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Remove fin@example.test?' }));
    expect(dialog.getByText(/fin@example.test can no longer sign in/)).toBeInTheDocument();
    // What goes with them, before they are removed.
    expect(dialog.getByText(/receipts waiting in their inbox/)).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Remove' }));
    expect(await dialog.findByRole('alert')).toHaveTextContent(
      'fin@example.test is the last admin: make someone else an admin first.',
    );
    await user.click(dialog.getByRole('button', { name: 'Remove' }));
    expect(await screen.findByRole('status')).toHaveTextContent('fin@example.test is removed.');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(requestsTo('/api/people/fin%40example.test', 'DELETE')).toHaveLength(2);
  });

  it("says a single sign-on person's next sign-on adds them again, never that removing keeps them out", async () => {
    servePeople({
      ...somePeople,
      people: [
        somePeople.people[0] as PersonView,
        person({ email: 'sso@example.test', source: 'sso' }),
      ],
    });
    const { user } = await openPeople();
    await user.click(screen.getByRole('button', { name: 'Remove sso@example.test' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Remove sso@example.test?' }));
    expect(dialog.getByText(/adds them again at their next sign-on/)).toBeInTheDocument();
    expect(dialog.queryByText(/can no longer sign in/)).toBeNull();
  });

  it('lists a person’s sessions, marks this one, and ends one or all', async () => {
    servePeople();
    let sessions = [
      {
        id: 's1',
        method: 'passkey',
        startedAt: '2026-11-27T08:00:00Z',
        lastSeenAt: '2026-11-27T08:10:00Z',
        current: true,
      },
      {
        id: 's2',
        method: 'password',
        startedAt: '2026-11-26T07:00:00Z',
        lastSeenAt: '2026-11-26T09:00:00Z',
        current: false,
      },
    ];
    server.use(
      serve('people.sessions', () => HttpResponse.json({ sessions })),
      serve('people.endSession', ({ params }) => {
        sessions = sessions.filter((s) => s.id !== params.id);
        return new HttpResponse(null, { status: 204 });
      }),
      serve('people.endSessions', () => {
        sessions = [];
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const { user } = await openPeople();
    await user.click(screen.getByRole('button', { name: 'Sessions of admin@example.test' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Sessions of admin@example.test' }));
    const rows = (await dialog.findAllByRole('row')).slice(1);
    expect(rows).toHaveLength(2);
    expect(within(rows[0] as HTMLElement).getByText('This session')).toBeInTheDocument();
    expect(within(rows[1] as HTMLElement).queryByText('This session')).toBeNull();
    await user.click(
      within(rows[1] as HTMLElement).getByRole('button', { name: /^End the password session/ }),
    );
    await waitFor(() => expect(dialog.getAllByRole('row')).toHaveLength(2));
    expect(requestsTo('/api/people/admin%40example.test/sessions/s2', 'DELETE')).toHaveLength(1);
    await user.click(dialog.getByRole('button', { name: 'End all' }));
    expect(await dialog.findByText('No open sessions.')).toBeInTheDocument();
    expect(requestsTo('/api/people/admin%40example.test/sessions', 'DELETE')).toHaveLength(1);
  });
});
