import type { PasskeyOptions } from '@card-console/shared/api/security';
import { type SignInBody, signInBodySchema } from '@card-console/shared/api/session';
import { startAuthentication } from '@simplewebauthn/browser';
import { screen, waitFor } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  adminSession,
  card,
  passkeyAssertion,
  productionMeta,
  quietOverview,
  subAccounts,
} from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, serve, server, serveSignedOut } from '../../../test/server';

vi.mock('@simplewebauthn/browser', () => ({
  startAuthentication: vi.fn(),
  startRegistration: vi.fn(),
}));
const startAuth = vi.mocked(startAuthentication);

const notAllowed = () =>
  Object.assign(new Error('The operation either timed out or was not allowed.'), {
    name: 'NotAllowedError',
  });

/** An admin with a passkey and TOTP; each second_factor_required carries a fresh challenge. */
function serveAdmin() {
  const bodies: SignInBody[] = [];
  let challenges = 0;
  const issued: PasskeyOptions[] = [];
  serveSignedOut(productionMeta);
  server.use(
    serve('session.signIn', async ({ request }) => {
      const body = signInBodySchema.parse(await request.json());
      bodies.push(body);
      if (body.passkey) {
        if (body.passkey.id !== 'cred-1') return apiError(401, 'invalid_passkey', 'Unknown key.');
        return HttpResponse.json(adminSession({ stepUpMethods: ['passkey', 'totp'] }));
      }
      const passkeyOptions = {
        challenge: `challenge-${++challenges}`,
        allowCredentials: [{ id: 'cred-1', type: 'public-key' }],
        userVerification: 'required',
      };
      issued.push(passkeyOptions);
      return apiError(401, 'second_factor_required', 'A second factor is needed.', {
        secondFactor: { methods: ['passkey', 'totp'], passkeyOptions },
      });
    }),
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('overview.get', () => HttpResponse.json(quietOverview())),
    serve('cards.list', () => HttpResponse.json({ items: [card()] })),
  );
  return { bodies, issued };
}

async function enterPassword(user: UserEvent) {
  await user.type(await screen.findByLabelText('Email'), 'admin@example.test');
  await user.type(screen.getByLabelText('Password'), 'right-password');
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

beforeEach(() => {
  startAuth.mockReset();
});

describe('sign in with a passkey as the second factor', () => {
  it('offers the passkey first (focused) and the code, then signs the challenge the 401 carried', async () => {
    const { bodies, issued } = serveAdmin();
    startAuth.mockResolvedValue(passkeyAssertion('cred-1'));
    const { user, router } = renderApp('/sign-in');
    await enterPassword(user);

    const passkey = await screen.findByRole('button', { name: 'Use a passkey' });
    // Focused by an effect once the choices are drawn: a moment after the button appears.
    await waitFor(() => expect(passkey).toHaveFocus());
    expect(passkey).toHaveClass('primary');
    expect(screen.getByLabelText('Second-factor code')).toBeInTheDocument();
    // Said calmly, not as an error: nothing has gone wrong.
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(
      screen.getByText('Use a passkey or enter the 6-digit code from your authenticator app.'),
    ).toBeInTheDocument();

    await user.click(passkey);
    expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/overview');
    expect(startAuth).toHaveBeenCalledExactlyOnceWith({ optionsJSON: issued[0] });
    // The same email and password again, with the assertion: no second password round.
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toEqual({
      email: 'admin@example.test',
      password: 'right-password',
      passkey: passkeyAssertion('cred-1'),
    });
  });

  it('a cancelled passkey says so in words; pressing again asks for a fresh challenge', async () => {
    const { bodies, issued } = serveAdmin();
    startAuth.mockRejectedValueOnce(notAllowed());
    startAuth.mockResolvedValueOnce(passkeyAssertion('cred-1'));
    const { user } = renderApp('/sign-in');
    await enterPassword(user);
    await user.click(await screen.findByRole('button', { name: 'Use a passkey' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The passkey was not used: the request was cancelled or timed out. You can also enter the code',
    );
    expect(bodies).toHaveLength(1);

    await user.click(screen.getByRole('button', { name: 'Use a passkey' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeInTheDocument();
    // The first challenge was spent on the cancelled attempt: the second used a new one.
    expect(startAuth.mock.calls.map(([o]) => o.optionsJSON.challenge)).toEqual([
      'challenge-1',
      'challenge-2',
    ]);
    expect(issued).toHaveLength(2);
    expect(bodies.map((b) => (b.passkey ? 'passkey' : 'password'))).toEqual([
      'password',
      'password',
      'passkey',
    ]);
  });

  it('a passkey the server refuses shows its message, and the code still works', async () => {
    const { bodies } = serveAdmin();
    server.use(
      serve('session.signIn', async ({ request }) => {
        const body = signInBodySchema.parse(await request.json());
        bodies.push(body);
        if (body.totp === '654321') return HttpResponse.json(adminSession());
        if (body.passkey) return apiError(401, 'invalid_passkey', 'That passkey is not yours.');
        return apiError(401, 'second_factor_required', 'A second factor is needed.', {
          secondFactor: { methods: ['passkey', 'totp'], passkeyOptions: { challenge: 'c-1' } },
        });
      }),
    );
    startAuth.mockResolvedValue(passkeyAssertion('cred-9'));
    const { user } = renderApp('/sign-in');
    await enterPassword(user);
    await user.click(await screen.findByRole('button', { name: 'Use a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('That passkey is not yours.');

    // Six digits send themselves.
    await user.type(screen.getByLabelText('Second-factor code'), '654321');
    expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeInTheDocument();
    expect(bodies.at(-1)).toEqual({
      email: 'admin@example.test',
      password: 'right-password',
      totp: '654321',
    });
  });

  it('with only a passkey offered, there is no code field and no second Sign in', async () => {
    serveAdmin();
    server.use(
      serve('session.signIn', () =>
        apiError(401, 'second_factor_required', 'A second factor is needed.', {
          secondFactor: { methods: ['passkey'], passkeyOptions: { challenge: 'c-1' } },
        }),
      ),
    );
    const { user } = renderApp('/sign-in');
    await enterPassword(user);
    const again = await screen.findByRole('button', { name: 'Use a passkey' });
    await waitFor(() => expect(again).toHaveFocus());
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByText('Use a passkey.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Second-factor code')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sign in' })).not.toBeInTheDocument();
  });
});
