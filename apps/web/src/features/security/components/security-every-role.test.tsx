import { startRegistration } from '@simplewebauthn/browser';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { financeSession, passkeyAttestation, secondFactors } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { serveSecurity } from '../../../test/serve-security';
import { apiError, requestsTo, serve, server } from '../../../test/server';

vi.mock('@simplewebauthn/browser', () => ({
  startAuthentication: vi.fn(),
  startRegistration: vi.fn(),
}));
const startReg = vi.mocked(startRegistration);

const noFactors = () => secondFactors({ passkeys: [], totp: { available: false, enabled: false } });

beforeEach(() => {
  startReg.mockReset();
});

describe('security for every role', () => {
  it('finance opens Security from the menu and adds a first passkey without a code to confirm', async () => {
    const { sent } = serveSecurity(noFactors(), financeSession());
    startReg.mockResolvedValue(passkeyAttestation('cred-new'));
    const { user } = renderApp('/security');
    expect(await screen.findByRole('heading', { level: 1, name: 'Security' })).toBeVisible();
    expect(screen.queryByText('Not allowed')).not.toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Security' })).toHaveAttribute(
      'href',
      '/security',
    );
    expect(
      screen.getByText(/someone who learns your password still cannot sign in as you/),
    ).toBeVisible();
    // The policy is the admins' to set: not offered here, not asked for.
    expect(screen.queryByRole('heading', { name: 'For everyone' })).not.toBeInTheDocument();
    expect(requestsTo('/api/security-policy', 'GET')).toHaveLength(0);
    // No authenticator app set up: no codes to turn off or on, only the offer to set one up.
    expect(screen.queryByRole('switch')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Set up an authenticator app' })).toBeVisible();

    await user.click(screen.getByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByText('Passkey “Passkey on this device” added.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Second-factor code')).not.toBeInTheDocument();
    expect(sent.stepUps).toEqual([]);
    expect(sent.enrolments).toHaveLength(1);
  });

  it('too long after signing in, the first passkey asks for a new sign-in in plain words', async () => {
    serveSecurity(noFactors(), financeSession());
    server.use(
      serve('security.registrationOptions', () =>
        apiError(401, 'recent_sign_in_required', 'Sign in again.'),
      ),
    );
    const { user } = renderApp('/security');
    await user.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'For your first passkey, sign out and sign in again, then add it within 5 minutes.',
    );
    expect(startReg).not.toHaveBeenCalled();
  });

  it('held by the policy: any screen leads to Security, which says why; after a passkey, the app opens', async () => {
    serveSecurity(noFactors(), financeSession({ secondFactorEnrolmentRequired: true }));
    startReg.mockResolvedValue(passkeyAttestation('cred-new'));
    const { user, router } = renderApp('/transactions');
    expect(await screen.findByRole('heading', { level: 1, name: 'Security' })).toBeVisible();
    expect(router.state.location.pathname).toBe('/security');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Your organisation requires a second factor. Add a passkey or set up an authenticator app below to continue',
    );
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((l) => l.textContent),
    ).toEqual(['Security']);

    await user.click(screen.getByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByText('Passkey “Passkey on this device” added.')).toBeInTheDocument();
    expect(await within(nav).findByRole('link', { name: 'Transactions' })).toBeInTheDocument();
    expect(
      screen.queryByText(/Your organisation requires a second factor/),
    ).not.toBeInTheDocument();
  });

  it('an admin requires a second factor for everyone: says what it does, then it is on', async () => {
    const { sent } = serveSecurity();
    const { user } = renderApp('/security');
    const section = (await screen.findByRole('heading', { name: 'For everyone' })).closest(
      'section',
    ) as HTMLElement;
    expect(within(section).getByText('A second factor is required for admins only.')).toBeVisible();
    await user.click(
      within(section).getByRole('button', { name: 'Require a second factor for everyone' }),
    );
    const dialog = await screen.findByRole('dialog', {
      name: 'Require a second factor for everyone',
    });
    expect(dialog).toHaveTextContent(/People without one are taken to Security/);
    await user.click(within(dialog).getByRole('button', { name: 'Require for everyone' }));
    expect(
      await screen.findByText(/Everyone now needs a second factor/, { selector: '.notice' }),
    ).toBeInTheDocument();
    expect(sent.policies).toEqual([true]);
    expect(within(section).getByText('A second factor is required for everyone.')).toBeVisible();
  });

  it('a refused change to the policy is said in the dialog, not lost', async () => {
    serveSecurity();
    server.use(
      serve('securityPolicy.update', () =>
        apiError(
          503,
          'audit_unavailable',
          'Nothing was changed: the audit trail could not record this change.',
        ),
      ),
    );
    const { user } = renderApp('/security');
    await user.click(
      await screen.findByRole('button', { name: 'Require a second factor for everyone' }),
    );
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Require for everyone' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Nothing was changed: the audit trail could not record this change.',
    );
  });
});
