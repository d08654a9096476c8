import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { financeSession, secondFactors } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { serveSecurity } from '../../../test/serve-security';
import { apiError, serve, server } from '../../../test/server';

const noFactors = () => secondFactors({ passkeys: [], totp: { available: false, enabled: false } });

describe('security: setting up an authenticator app', () => {
  it('finance sets one up: the key in fours, a link for the app, a code; then codes are on', async () => {
    const { sent } = serveSecurity(noFactors(), financeSession());
    const { user } = renderApp('/security');
    await user.click(await screen.findByRole('button', { name: 'Set up an authenticator app' }));

    const form = await screen.findByRole('form', { name: 'Set up an authenticator app' });
    expect(within(form).getByTestId('totp-secret')).toHaveTextContent(
      'JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP',
    );
    expect(within(form).getByRole('link', { name: 'Open in authenticator app' })).toHaveAttribute(
      'href',
      expect.stringMatching(/^otpauth:\/\/totp\/Card%20Console:.*secret=JBSWY3DPEHPK3PXP/),
    );
    expect(
      await within(form).findByRole('img', { name: 'QR code for your authenticator app' }),
    ).toHaveAttribute('src', expect.stringMatching(/^data:image\/svg\+xml/));
    // A first factor needs no check first (a recent sign-in is the check).
    expect(sent.stepUps).toEqual([]);

    const field = within(form).getByLabelText('6-digit code from the app');
    await user.type(field, '12');
    await user.click(within(form).getByRole('button', { name: 'Confirm code' }));
    expect(
      await within(form).findByText('Type the 6-digit code your authenticator app shows.'),
    ).toBeVisible();
    expect(sent.totpCodes).toEqual([]);

    await user.clear(field);
    await user.type(field, '111111');
    await user.click(within(form).getByRole('button', { name: 'Confirm code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('That code does not match.');
    // The key stays on screen for another try.
    expect(within(form).getByTestId('totp-secret')).toBeVisible();

    await user.clear(field);
    await user.type(field, '654 321');
    await user.click(within(form).getByRole('button', { name: 'Confirm code' }));
    expect(
      await screen.findByText(
        'Authenticator app set up: its codes now confirm it is you, here and when you sign in.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByTestId('totp-secret')).not.toBeInTheDocument();
    expect(
      await screen.findByRole('switch', { name: 'Accept authenticator-app codes' }),
    ).toHaveAttribute('aria-checked', 'true');
    expect(screen.getByRole('button', { name: 'Replace authenticator app' })).toBeVisible();
    expect(sent.totpCodes).toEqual(['111111', '654321']);
  });

  it('with a factor, replacing the app asks for a check first, then shows the new key', async () => {
    const { sent } = serveSecurity(undefined, { stepUpUntil: undefined, stepUpMethods: ['totp'] });
    const { user } = renderApp('/security');
    await user.click(await screen.findByRole('button', { name: 'Replace authenticator app' }));
    expect(sent.totpSetups).toBe(0);
    await user.type(await screen.findByLabelText('Second-factor code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    const form = await screen.findByRole('form', { name: 'Replace authenticator app' });
    expect(sent.stepUps).toEqual([{ totp: '123456' }]);
    await user.type(within(form).getByLabelText('6-digit code from the app'), '654321');
    await user.click(within(form).getByRole('button', { name: 'Confirm code' }));
    expect(await screen.findByText(/Authenticator app replaced/)).toBeInTheDocument();
  });

  it('an expired setup says to start again, in plain words', async () => {
    serveSecurity(noFactors(), financeSession());
    server.use(serve('security.confirmTotp', () => apiError(409, 'no_totp_setup', 'Expired.')));
    const { user } = renderApp('/security');
    await user.click(await screen.findByRole('button', { name: 'Set up an authenticator app' }));
    const form = await screen.findByRole('form', { name: 'Set up an authenticator app' });
    await user.type(within(form).getByLabelText('6-digit code from the app'), '654321');
    await user.click(within(form).getByRole('button', { name: 'Confirm code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This setup has expired. Start again: you will get a new key.',
    );
    expect(screen.queryByTestId('totp-secret')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Set up an authenticator app' })).toBeVisible();
  });

  it('too long after signing in, the first one asks for a new sign-in', async () => {
    serveSecurity(noFactors(), financeSession());
    server.use(
      serve('security.totpSetup', () => apiError(401, 'recent_sign_in_required', 'Sign in again.')),
    );
    const { user } = renderApp('/security');
    await user.click(await screen.findByRole('button', { name: 'Set up an authenticator app' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'sign out and sign in again, then set it up within 5 minutes',
    );
  });
});
