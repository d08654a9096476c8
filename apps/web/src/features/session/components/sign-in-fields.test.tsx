import { screen, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/api-error';
import {
  card,
  financeSession,
  productionMeta,
  quietOverview,
  subAccounts,
} from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server, serveSignedOut } from '../../../test/server';
import { signInFieldErrorsFromServer } from '../sign-in-fields';

/** The message tied to a control through aria-describedby. */
function describedBy(control: HTMLElement): string {
  const ids = control.getAttribute('aria-describedby')?.split(' ') ?? [];
  return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
}

describe('sign-in fields', () => {
  it('an empty submit says what each field needs, beside it, and puts focus on the first', async () => {
    serveSignedOut(productionMeta);
    const { user } = renderApp('/sign-in');
    await user.click(await screen.findByRole('button', { name: 'Sign in' }));
    const email = screen.getByLabelText('Email');
    const password = screen.getByLabelText('Password');
    expect(email).toHaveAttribute('aria-invalid', 'true');
    expect(describedBy(email)).toBe('Enter your email address.');
    expect(password).toHaveAttribute('aria-invalid', 'true');
    expect(describedBy(password)).toBe('Enter your password.');
    expect(email).toHaveFocus();
    expect(requestsTo('/api/session', 'POST')).toHaveLength(0);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('a malformed email or a missing password: the message and focus are on that field', async () => {
    serveSignedOut(productionMeta);
    const { user } = renderApp('/sign-in');
    await user.type(await screen.findByLabelText('Email'), 'finance.example.test');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    const email = screen.getByLabelText('Email');
    expect(describedBy(email)).toBe('Enter an email address like name@company.com.');
    expect(email).toHaveFocus();

    // Typing clears what was said about that field, and leaves focus where it is.
    await user.clear(email);
    await user.type(email, 'finance@example.test');
    expect(email).not.toHaveAttribute('aria-invalid');
    expect(email).toHaveFocus();
    expect(screen.getByLabelText('Password')).toHaveAttribute('aria-invalid', 'true');

    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.getByLabelText('Password')).toHaveFocus();
    expect(requestsTo('/api/session', 'POST')).toHaveLength(0);
  });

  it('the server’s 400 shows as the same plain words per field, never its own wording', async () => {
    serveSignedOut(productionMeta);
    server.use(
      serve('session.signIn', () =>
        apiError(
          400,
          'invalid_request',
          'email: Invalid email address; password: Too small: expected string to have >=1 characters',
        ),
      ),
    );
    const { user } = renderApp('/sign-in');
    // Looks like an address here; the server's stricter check refuses it.
    await user.type(await screen.findByLabelText('Email'), 'a@b.c');
    await user.type(screen.getByLabelText('Password'), 'x');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    const email = screen.getByLabelText('Email');
    await screen.findByText('Enter an email address like name@company.com.');
    expect(describedBy(email)).toBe('Enter an email address like name@company.com.');
    expect(describedBy(screen.getByLabelText('Password'))).toBe(
      'Check your password and enter it again.',
    );
    expect(email).toHaveFocus();
    expect(document.body).not.toHaveTextContent(/Invalid email|Too small|expected string/);
  });

  it('a code that is not 6 digits is said beside the code field, with focus on it', async () => {
    serveSignedOut(productionMeta);
    server.use(
      serve('session.signIn', () =>
        apiError(401, 'second_factor_required', 'A second factor is needed.', {
          secondFactor: { methods: ['totp'] },
        }),
      ),
    );
    const { user } = renderApp('/sign-in');
    await user.type(await screen.findByLabelText('Email'), 'admin@example.test');
    await user.type(screen.getByLabelText('Password'), 'right-password{Enter}');
    const code = await screen.findByLabelText('Second-factor code');
    expect(code).toHaveFocus();
    await user.type(code, '123');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(describedBy(code)).toContain('The code is the 6 digits your authenticator app shows.');
    expect(code).toHaveFocus();
    expect(requestsTo('/api/session', 'POST')).toHaveLength(1);
  });
});

describe('sign-in while signed in', () => {
  function serveSignedIn() {
    server.use(
      serve('meta.get', () => HttpResponse.json(productionMeta)),
      serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
      serve('overview.get', () => HttpResponse.json(quietOverview())),
      serve('cards.list', () => HttpResponse.json({ items: [card()] })),
    );
  }

  it('goes on to the app', async () => {
    serveSignedIn();
    const { router } = renderApp('/sign-in', { session: financeSession() });
    expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
    expect(router.state.location.pathname).toBe('/overview');
    expect(screen.queryByRole('button', { name: 'Sign in' })).not.toBeInTheDocument();
  });

  it('goes where the redirect says, when it is inside the app', async () => {
    serveSignedIn();
    const { router } = renderApp('/sign-in?redirect=%22%2Fcards%3Fstatus%3Dactive%22', {
      session: financeSession(),
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Cards' })).toBeVisible();
    expect(router.state.location.href).toBe('/cards?status=active');
  });

  it('never to another site', async () => {
    serveSignedIn();
    const { router } = renderApp('/sign-in?redirect=%22%2F%2Fevil.example%2F%22', {
      session: financeSession(),
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
    expect(router.state.location.pathname).toBe('/overview');
  });

  it('signing out still lands on the sign-in form (the session it had cached is over)', async () => {
    serveSignedIn();
    server.use(serve('session.signOut', () => new HttpResponse(null, { status: 204 })));
    const { user, router } = renderApp('/cards', { session: financeSession() });
    const nav = await screen.findByRole('banner');
    await user.click(within(nav).getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/sign-in');
  });
});

describe('server field errors', () => {
  const refused = (status: number, detail: string) =>
    new ApiError({ status, code: 'invalid_request', detail, requestId: 'r' });

  it('maps only the fields the form has; other paths and prototype names are left out', () => {
    expect(signInFieldErrorsFromServer(refused(400, 'totp: Invalid string'))).toEqual({
      totp: 'The code is the 6 digits your authenticator app shows.',
    });
    expect(signInFieldErrorsFromServer(refused(400, 'constructor: x'))).toBeUndefined();
    expect(
      signInFieldErrorsFromServer(refused(400, 'passkey: a code or a passkey')),
    ).toBeUndefined();
    expect(signInFieldErrorsFromServer(refused(401, 'email: x'))).toBeUndefined();
  });
});
