import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app';
import { requestsTo, serve, server } from '../../../test/server';
import { forgetJoinToken } from '../join-token';
import { problem } from '../test/people-fixtures';

const TOKEN = 'Zq3v-_b8RkT2mWx9LpN4sYc7HdJ6fGa1Ue5Vo0Ki2Qe';
/** The secret the BFF made for this invitation (in tests, a fixed one). */
const SERVER_SECRET = 'KRUGS4ZANFZSAYJAONSWG4TFOQQGC3TE';
const SERVER_URI = `otpauth://totp/Card%20Console:ann%40example.test?secret=${SERVER_SECRET}&issuer=Card%20Console`;

function serveInvitation(role: 'finance' | 'admin') {
  server.use(
    serve('invitations.lookup', () =>
      HttpResponse.json({
        email: 'ann@example.test',
        role,
        expiresAt: '2026-12-01T09:00:00Z',
        needsSecondFactor: role === 'admin',
      }),
    ),
    serve('invitations.accept', () =>
      HttpResponse.json({ email: 'ann@example.test' }, { status: 201 }),
    ),
    serve('invitations.authenticator', () =>
      HttpResponse.json({ secret: SERVER_SECRET, otpauthUri: SERVER_URI }, { status: 201 }),
    ),
  );
}

beforeEach(() => forgetJoinToken());

describe('join', () => {
  it('takes the token out of the address first, then asks what the link is for', async () => {
    serveInvitation('finance');
    const { router, history } = renderApp(`/join#${TOKEN}`);
    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'Join Card Console as ann@example.test (finance)',
      }),
    ).toBeVisible();
    expect(history.location.hash).toBe('');
    expect(router.state.location.href).toBe('/join');
    expect(history.location.href).not.toContain(TOKEN);
    // Replaced, not pushed: no history entry keeps the link's token.
    expect(history.length).toBe(1);
    const [lookup] = requestsTo('/api/invitations/lookup', 'POST');
    expect(new URL(lookup?.url ?? '').hash).toBe('');
    expect(await lookup?.json()).toEqual({ token: TOKEN });
  });

  it('another link opened in the same tab is looked up afresh, its token taken out too', async () => {
    serveInvitation('finance');
    const { router } = renderApp(`/join#${TOKEN}`);
    await screen.findByRole('heading', { level: 1, name: /Join Card Console as/ });
    const other = TOKEN.replace('Zq3v', 'Yp2u');
    server.use(
      serve('invitations.lookup', () =>
        problem(410, 'invitation_revoked', 'This invitation was withdrawn.'),
      ),
    );
    await router.navigate({ href: `/join#${other}` });
    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'This invitation link no longer works',
      }),
    ).toBeVisible();
    expect(screen.getByText(/The admin who sent it withdrew it./)).toBeInTheDocument();
    expect(router.state.location.hash).toBe('');
    const lookups = requestsTo('/api/invitations/lookup', 'POST');
    expect(lookups).toHaveLength(2);
    expect(await lookups[1]?.json()).toEqual({ token: other });
  });

  it('checks the password twice and its length, then signs up and points to sign-in', async () => {
    serveInvitation('finance');
    const { user } = renderApp(`/join#${TOKEN}`);
    await screen.findByRole('heading', { level: 1, name: /Join Card Console as/ });
    expect(screen.queryByRole('group', { name: 'Your authenticator app' })).toBeNull();
    await user.type(screen.getByLabelText('Password'), 'short');
    await user.type(screen.getByLabelText('Password again'), 'shorter');
    await user.click(screen.getByRole('button', { name: 'Join' }));
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription(
      'At least 12 characters. Use at least 12 characters.',
    );
    expect(screen.getByLabelText('Password again')).toHaveAccessibleDescription(
      'The two passwords differ: type the same one twice.',
    );
    expect(requestsTo('/api/invitations/accept', 'POST')).toHaveLength(0);

    await user.clear(screen.getByLabelText('Password'));
    await user.clear(screen.getByLabelText('Password again'));
    await user.type(screen.getByLabelText('Password'), 'correct horse battery');
    await user.type(screen.getByLabelText('Password again'), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Join' }));
    expect(await screen.findByRole('heading', { level: 1, name: "You're in" })).toBeVisible();
    expect(await requestsTo('/api/invitations/accept', 'POST')[0]?.json()).toEqual({
      token: TOKEN,
      password: 'correct horse battery',
    });
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/sign-in');
  });

  it('an admin sets up the authenticator the server made: its QR code and key, and no sign-up without a current code; no secret leaves the page', async () => {
    serveInvitation('admin');
    let wrongOnce = true;
    server.use(
      serve('invitations.accept', () => {
        if (wrongOnce) {
          wrongOnce = false;
          return problem(400, 'invalid_totp', 'The code is not right.');
        }
        return HttpResponse.json({ email: 'ann@example.test' }, { status: 201 });
      }),
    );
    const { user } = renderApp(`/join#${TOKEN}`);
    const app = within(await screen.findByRole('group', { name: 'Your authenticator app' }));
    expect(
      await app.findByRole('img', { name: 'QR code for your authenticator app' }),
    ).toHaveAttribute('src', expect.stringMatching(/^data:image\/svg\+xml/));
    expect(app.getByText('KRUG S4ZA NFZS AYJA ONSW G4TF OQQG C3TE')).toBeVisible();
    const made = requestsTo('/api/invitations/authenticator', 'POST');
    expect(made).toHaveLength(1);
    expect(await made[0]?.json()).toEqual({ token: TOKEN });

    await user.type(screen.getByLabelText('Password'), 'correct horse battery');
    await user.type(screen.getByLabelText('Password again'), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Join' }));
    expect(app.getByLabelText('Second-factor code')).toHaveAccessibleDescription(
      /Enter the 6-digit code your authenticator app shows./,
    );
    expect(requestsTo('/api/invitations/accept', 'POST')).toHaveLength(0);

    await user.type(app.getByLabelText('Second-factor code'), '000000');
    await user.click(screen.getByRole('button', { name: 'Join' }));
    await waitFor(() =>
      expect(app.getByLabelText('Second-factor code')).toHaveAccessibleDescription(
        /That code is not right/,
      ),
    );

    await user.type(app.getByLabelText('Second-factor code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Join' }));
    expect(await screen.findByRole('heading', { level: 1, name: "You're in" })).toBeVisible();
    const sent = await Promise.all(
      requestsTo('/api/invitations/accept', 'POST').map((request) => request.json()),
    );
    // The code only: the secret stays with the server, which made it.
    expect(sent).toEqual([
      { token: TOKEN, password: 'correct horse battery', totpCode: '000000' },
      { token: TOKEN, password: 'correct horse battery', totpCode: '123456' },
    ]);
    expect(JSON.stringify(sent)).not.toContain(SERVER_SECRET);
    // Asked once for the whole page, wrong code and all.
    expect(requestsTo('/api/invitations/authenticator', 'POST')).toHaveLength(1);
  }, 15_000);

  it('a failure to make the key says so and offers a retry, which asks again', async () => {
    serveInvitation('admin');
    let answer = 0;
    server.use(
      serve('invitations.authenticator', () =>
        answer++ === 0
          ? problem(500, 'internal_error', 'Something went wrong on our side. Try again.')
          : HttpResponse.json({ secret: SERVER_SECRET, otpauthUri: SERVER_URI }, { status: 201 }),
      ),
    );
    const { user } = renderApp(`/join#${TOKEN}`);
    expect(
      await screen.findByRole('heading', { name: 'Something went wrong on our side' }),
    ).toBeVisible();
    expect(screen.queryByRole('group', { name: 'Your authenticator app' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    const app = within(await screen.findByRole('group', { name: 'Your authenticator app' }));
    expect(await app.findByText('KRUG S4ZA NFZS AYJA ONSW G4TF OQQG C3TE')).toBeVisible();
    expect(requestsTo('/api/invitations/authenticator', 'POST')).toHaveLength(2);
  });

  it('a link that dies before the key is made (410) gets the page saying so', async () => {
    serveInvitation('admin');
    server.use(
      serve('invitations.authenticator', () =>
        problem(410, 'invitation_revoked', 'This invitation was withdrawn.'),
      ),
    );
    renderApp(`/join#${TOKEN}`);
    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'This invitation link no longer works',
      }),
    ).toBeVisible();
    expect(screen.getByText(/The admin who sent it withdrew it./)).toBeInTheDocument();
    expect(screen.queryByLabelText('Password')).toBeNull();
  });

  it('someone from finance is asked for no authenticator, and none is made', async () => {
    serveInvitation('finance');
    renderApp(`/join#${TOKEN}`);
    await screen.findByRole('heading', { level: 1, name: /Join Card Console as/ });
    expect(screen.queryByRole('group', { name: 'Your authenticator app' })).toBeNull();
    expect(requestsTo('/api/invitations/authenticator', 'POST')).toHaveLength(0);
  });

  it('an expired link (410) gets a page saying so', async () => {
    server.use(
      serve('invitations.lookup', () =>
        problem(410, 'invitation_expired', 'This invitation has expired.'),
      ),
    );
    renderApp(`/join#${TOKEN}`);
    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'This invitation link no longer works',
      }),
    ).toBeVisible();
    expect(screen.getByText(/Ask an admin for a new invitation/)).toBeInTheDocument();
    expect(screen.queryByLabelText('Password')).toBeNull();
  });

  it('an unknown link (404) and one cut short are not valid; no token at all says to open the link', async () => {
    server.use(serve('invitations.lookup', () => problem(404, 'not_found', 'No such invitation.')));
    renderApp(`/join#${TOKEN}`);
    expect(
      await screen.findByRole('heading', { level: 1, name: 'This invitation link is not valid' }),
    ).toBeVisible();
  });

  it('a link cut short is not valid without asking the BFF', async () => {
    renderApp('/join#abc');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'This invitation link is not valid' }),
    ).toBeVisible();
    expect(requestsTo('/api/invitations/lookup', 'POST')).toHaveLength(0);
  });

  it('no token at all says to open the link from the invitation', async () => {
    renderApp('/join');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Open the link from your invitation' }),
    ).toBeVisible();
  });
});
