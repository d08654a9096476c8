import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  passkeyAssertion,
  passkeyAttestation,
  passkeySummary,
  secondFactors,
} from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { registrationOptions, serveSecurity, stepUpOptions } from '../../../test/serve-security';
import { requestsTo } from '../../../test/server';

vi.mock('@simplewebauthn/browser', () => ({
  startAuthentication: vi.fn(),
  startRegistration: vi.fn(),
}));
const startAuth = vi.mocked(startAuthentication);
const startReg = vi.mocked(startRegistration);

const when = (ms: number) =>
  new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(ms);
const yubikey = passkeySummary({
  id: 'cred-2',
  name: 'YubiKey',
  createdAt: Date.parse('2026-02-10T09:00:00.000Z'),
  lastUsedAt: undefined,
});

beforeEach(() => {
  startAuth.mockReset();
  startReg.mockReset();
});

describe('security: passkeys', () => {
  it('lists each passkey with when it was added and last used', async () => {
    serveSecurity(secondFactors({ passkeys: [passkeySummary(), yubikey] }));
    renderApp('/security');
    expect(await screen.findByRole('heading', { level: 1, name: 'Security' })).toBeVisible();
    expect(document.title).toBe('Security · Card Console');
    const mac = screen.getByRole('row', { name: /MacBook Touch ID/ });
    const first = passkeySummary();
    expect(within(mac).getByText(when(first.createdAt))).toBeInTheDocument();
    expect(within(mac).getByText(when(first.lastUsedAt as number))).toBeInTheDocument();
    const key = screen.getByRole('row', { name: /YubiKey/ });
    expect(within(key).getByText('Never')).toBeInTheDocument();
    expect(within(key).getByRole('button', { name: 'Rename YubiKey' })).toBeInTheDocument();
    expect(within(key).getByRole('button', { name: 'Remove YubiKey' })).toBeInTheDocument();
  });

  it('adding asks for a step-up first (the code), then makes the passkey and enrols it', async () => {
    const { sent } = serveSecurity(secondFactors({ passkeys: [] }), {
      stepUpUntil: undefined,
      stepUpMethods: ['totp'],
    });
    startReg.mockResolvedValue(passkeyAttestation('cred-new'));
    const { user } = renderApp('/security');
    expect(await screen.findByText('You have no passkeys yet.')).toBeInTheDocument();
    const name = screen.getByLabelText('Name for the new passkey');
    expect(name).toHaveValue('Passkey on this device');
    await user.clear(name);
    await user.type(name, 'Work laptop');
    await user.click(screen.getByRole('button', { name: 'Add a passkey' }));

    const code = await screen.findByLabelText('Second-factor code');
    expect(code).toHaveFocus();
    expect(screen.getByText(/Confirm it is you before adding a passkey/)).toBeInTheDocument();
    expect(requestsTo('/api/passkeys/registration-options', 'POST')).toHaveLength(0);

    await user.type(code, '111111');
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('That code is not right');
    expect(startReg).not.toHaveBeenCalled();

    await user.type(screen.getByLabelText('Second-factor code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    const status = await screen.findByText('Passkey “Work laptop” added.');
    expect(status.closest('[role="status"]')).not.toBeNull();
    expect(screen.getByRole('row', { name: /Work laptop/ })).toBeInTheDocument();
    expect(startReg).toHaveBeenCalledExactlyOnceWith({ optionsJSON: registrationOptions });
    expect(sent.stepUps).toEqual([{ totp: '111111' }, { totp: '123456' }]);
    expect(sent.enrolments).toEqual([
      { name: 'Work laptop', response: passkeyAttestation('cred-new') },
    ]);
    expect(screen.getByLabelText('Name for the new passkey')).toHaveValue('Passkey on this device');
    expect(screen.queryByLabelText('Second-factor code')).not.toBeInTheDocument();
  });

  it('stepped up already, goes straight to the browser; a passkey already enrolled is explained', async () => {
    const { sent } = serveSecurity();
    startReg.mockResolvedValue(passkeyAttestation('cred-1'));
    const { user } = renderApp('/security');
    await user.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This device or security key already holds one of your passkeys.',
    );
    expect(sent.stepUps).toHaveLength(0);
    expect(sent.enrolments).toHaveLength(1);
    expect(screen.getAllByRole('row')).toHaveLength(2);
  });

  it('a name is required, and nothing is asked of the browser without one', async () => {
    serveSecurity();
    const { user } = renderApp('/security');
    await user.clear(await screen.findByLabelText('Name for the new passkey'));
    await user.click(screen.getByRole('button', { name: 'Add a passkey' }));
    expect(screen.getByText('give the passkey a name')).toBeInTheDocument();
    expect(screen.getByLabelText('Name for the new passkey')).toHaveAttribute(
      'aria-invalid',
      'true',
    );
    expect(startReg).not.toHaveBeenCalled();
  });

  it('renames inline: Escape cancels and gives focus back, Enter saves', async () => {
    const { sent } = serveSecurity();
    const { user } = renderApp('/security');
    const rename = await screen.findByRole('button', { name: 'Rename MacBook Touch ID' });
    await user.click(rename);
    const field = screen.getByLabelText('New name');
    expect(field).toHaveFocus();
    expect(field).toHaveValue('MacBook Touch ID');
    await user.type(field, ' (old)');
    await user.keyboard('{Escape}');
    expect(screen.queryByLabelText('New name')).not.toBeInTheDocument();
    expect(screen.getByRole('row', { name: /MacBook Touch ID/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Rename MacBook Touch ID' })).toHaveFocus();
    expect(sent.renames).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Rename MacBook Touch ID' }));
    await user.clear(screen.getByLabelText('New name'));
    await user.type(screen.getByLabelText('New name'), 'Work MacBook{Enter}');
    expect(await screen.findByText('Passkey renamed to “Work MacBook”.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Rename Work MacBook' })).toHaveFocus();
    expect(sent.renames).toEqual([{ id: 'cred-1', name: 'Work MacBook' }]);
  });

  it('removing the last second factor is refused in words (409), and Cancel returns focus', async () => {
    const { sent } = serveSecurity(secondFactors({ totp: { available: true, enabled: false } }));
    const { user } = renderApp('/security');
    const remove = await screen.findByRole('button', { name: 'Remove MacBook Touch ID' });
    await user.click(remove);
    const dialog = screen.getByRole('dialog', { name: 'Remove passkey' });
    expect(dialog).toHaveTextContent('Remove “MacBook Touch ID”?');
    await user.click(within(dialog).getByRole('button', { name: 'Remove passkey' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'This is your only passkey and authenticator-app codes are off',
    );
    expect(sent.removals).toEqual(['cred-1']);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(remove).toHaveFocus();
    expect(screen.getByRole('row', { name: /MacBook Touch ID/ })).toBeInTheDocument();
  });

  it('removing after a passkey step-up takes the row away and puts focus on the list heading', async () => {
    const { sent } = serveSecurity(secondFactors({ passkeys: [passkeySummary(), yubikey] }), {
      stepUpUntil: undefined,
      stepUpMethods: ['passkey'],
    });
    startAuth.mockResolvedValue(passkeyAssertion('cred-1'));
    const { user } = renderApp('/security');
    await user.click(await screen.findByRole('button', { name: 'Remove YubiKey' }));
    const dialog = screen.getByRole('dialog', { name: 'Remove passkey' });
    // No code is offered (only a passkey), and nothing is removed before the check.
    expect(within(dialog).queryByLabelText('Second-factor code')).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Use a passkey' }));

    expect(await screen.findByText('Passkey “YubiKey” removed.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.queryByRole('row', { name: /YubiKey/ })).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('heading', { name: 'Passkeys' })).toHaveFocus());
    expect(startAuth).toHaveBeenCalledExactlyOnceWith({ optionsJSON: stepUpOptions });
    expect(sent.stepUps).toEqual([{ passkey: passkeyAssertion('cred-1') }]);
    expect(sent.removals).toEqual(['cred-2']);
  });
});
