import { type SessionResponse, signInBodySchema } from '@card-console/shared/api/session';
import { screen, waitFor } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  adminSession,
  card,
  demoMeta,
  financeSession,
  productionMeta,
  quietOverview,
  subAccounts,
} from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';

/** A BFF that knows one finance person and one admin with a TOTP second factor. */
function serveSignIn(meta = demoMeta) {
  let signedIn: SessionResponse | null = null;
  const bodies: unknown[] = [];
  server.use(
    serve('meta.get', () => HttpResponse.json(meta)),
    serve('meta.demoAdminCode', () => HttpResponse.json({ code: '123456', secondsLeft: 30 })),
    serve('session.get', () =>
      signedIn ? HttpResponse.json(signedIn) : apiError(401, 'unauthenticated', 'Sign in first.'),
    ),
    serve('session.signIn', async ({ request }) => {
      const body = signInBodySchema.parse(await request.json());
      bodies.push(body);
      if (body.password !== 'right-password') {
        return apiError(401, 'invalid_credentials', 'Wrong email or password.');
      }
      if (body.email === 'admin@example.test') {
        if (!body.totp) {
          return apiError(401, 'second_factor_required', 'A second factor is needed.', {
            secondFactor: { methods: ['totp'] },
          });
        }
        if (body.totp !== '654321') return apiError(401, 'invalid_totp', 'Wrong code.');
        signedIn = adminSession();
      } else {
        signedIn = financeSession();
      }
      return HttpResponse.json(signedIn);
    }),
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('cards.list', () => HttpResponse.json({ items: [card()] })),
    serve('overview.get', () => HttpResponse.json(quietOverview())),
  );
  return { bodies };
}

describe('sign in', () => {
  it('sends a signed-out visitor to sign-in and back to where they were going', async () => {
    serveSignIn();
    const { user, router } = renderApp('/cards?status=active');
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/sign-in');
    expect(screen.queryByText(/session ended/)).not.toBeInTheDocument();

    await user.type(screen.getByLabelText('Email'), 'finance@example.test');
    await user.type(screen.getByLabelText('Password'), 'right-password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { name: 'Cards' })).toBeInTheDocument();
    expect(router.state.location.href).toBe('/cards?status=active');
  });

  it('shows a wrong password as a message, not a broken page', async () => {
    serveSignIn();
    const { user } = renderApp('/sign-in');
    await user.type(await screen.findByLabelText('Email'), 'finance@example.test');
    await user.type(screen.getByLabelText('Password'), 'nope');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Wrong email or password.');
  });

  it('asks an admin for the second-factor code when the server requires it', async () => {
    const { bodies } = serveSignIn(productionMeta);
    const { user, router } = renderApp('/sign-in');
    await user.type(await screen.findByLabelText('Email'), 'admin@example.test');
    await user.type(screen.getByLabelText('Password'), 'right-password');
    expect(screen.queryByLabelText('Second-factor code')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    // A step of its own: the code field focused, the instruction calm (nothing went wrong yet).
    const code = await screen.findByLabelText('Second-factor code');
    expect(code).toHaveFocus();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByText('Enter the 6-digit code from your authenticator app.')).not.toHaveClass(
      'form-error',
    );
    expect(screen.getByText(/Signing in as/)).toHaveTextContent('admin@example.test');
    expect(screen.queryByLabelText('Password')).not.toBeInTheDocument();
    // Only a code was offered: no passkey button; the submit button stays for anyone who waits.
    expect(screen.queryByRole('button', { name: 'Use a passkey' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeInTheDocument();

    // Six digits send themselves; a wrong code is a real error, in red, and the field is emptied.
    await user.type(code, '111111');
    expect(await screen.findByRole('alert')).toHaveTextContent('Wrong code.');
    expect(code).toHaveValue('');
    expect(code).toHaveFocus();
    expect(bodies).toHaveLength(2);

    // Enter right after the sixth digit still sends one request.
    await user.type(code, '654321{Enter}');
    // Everyone lands on the Overview.
    expect(await screen.findByRole('heading', { name: 'Overview', level: 1 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/overview');
    expect(screen.getByRole('link', { name: 'Audit' })).toBeInTheDocument();
    expect(bodies).toHaveLength(3);
    expect(bodies.at(-1)).toEqual({
      email: 'admin@example.test',
      password: 'right-password',
      totp: '654321',
    });
  });

  it('"Use another account" leaves the second step for the first, the email kept and the password not', async () => {
    const { bodies } = serveSignIn(productionMeta);
    const { user } = renderApp('/sign-in');
    await user.type(await screen.findByLabelText('Email'), 'admin@example.test');
    await user.type(screen.getByLabelText('Password'), 'right-password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await screen.findByLabelText('Second-factor code');

    await user.click(screen.getByRole('button', { name: 'Use another account' }));
    expect(screen.queryByLabelText('Second-factor code')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveValue('admin@example.test');
    expect(screen.getByLabelText('Email')).toHaveFocus();
    expect(screen.getByLabelText('Password')).toHaveValue('');
    expect(bodies).toHaveLength(1);
  });

  it('in demo mode shows the demo accounts with the TOTP secret and URI, and fills them in', async () => {
    serveSignIn(demoMeta);
    const { user } = renderApp('/sign-in');
    expect(await screen.findByRole('heading', { name: 'Demo accounts' })).toBeInTheDocument();
    expect(screen.getByText('JBSWY3DPEHPK3PXP')).toBeInTheDocument();
    expect(screen.getByText(/^otpauth:\/\/totp\//)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Use admin@demo.test' }));
    expect(screen.getByLabelText('Email')).toHaveValue('admin@demo.test');
    expect(screen.getByLabelText('Password')).toHaveValue('demo-password');
    // Known demo admin: the code field is there before the server asks.
    expect(screen.getByLabelText('Second-factor code')).toBeInTheDocument();
  });

  it('never shows demo accounts in production mode', async () => {
    serveSignIn(productionMeta);
    renderApp('/sign-in');
    await screen.findByRole('button', { name: 'Sign in' });
    await waitFor(() => expect(requestsTo('/api/meta')).toHaveLength(1));
    expect(screen.queryByRole('heading', { name: 'Demo accounts' })).not.toBeInTheDocument();
    expect(screen.queryByText(/demo-password/)).not.toBeInTheDocument();
  });

  it('still works when /api/meta fails', async () => {
    serveSignIn();
    server.use(serve('meta.get', () => apiError(500, 'internal_error', 'boom')));
    renderApp('/sign-in');
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });

  it('ignores a redirect to another site', async () => {
    serveSignIn();
    const { user, router } = renderApp('/sign-in?redirect=%22https%3A%2F%2Fevil.example%2F%22');
    await user.type(await screen.findByLabelText('Email'), 'finance@example.test');
    await user.type(screen.getByLabelText('Password'), 'right-password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await screen.findByRole('heading', { name: 'Overview', level: 1 });
    expect(router.state.location.pathname).toBe('/overview');
  });
});
