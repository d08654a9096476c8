import { screen, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { secondFactors, ssoMeta } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { serveSecurity } from '../../../test/serve-security';
import { requestsTo, serve, server } from '../../../test/server';

describe('security: authenticator-app codes', () => {
  it('turning codes off first says the app then stops working; turning them on is one press', async () => {
    const { sent } = serveSecurity();
    const { user } = renderApp('/security');
    const toggle = await screen.findByRole('switch', { name: 'Accept authenticator-app codes' });
    expect(toggle).toHaveAttribute('aria-checked', 'true');
    expect(toggle).toHaveAccessibleDescription(
      'Turning this off means the codes your authenticator app shows no longer work.',
    );

    await user.click(toggle);
    const dialog = screen.getByRole('dialog', { name: 'Turn off authenticator-app codes' });
    expect(dialog).toHaveTextContent('the codes your authenticator app shows no longer work');
    expect(sent.totp).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Turn off codes' }));
    expect(await screen.findByText('Authenticator-app codes turned off.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(toggle).toHaveAttribute('aria-checked', 'false');
    expect(toggle).toHaveFocus();

    await user.click(toggle);
    expect(await screen.findByText('Authenticator-app codes turned on.')).toBeInTheDocument();
    expect(toggle).toHaveAttribute('aria-checked', 'true');
    expect(sent.totp).toEqual([false, true]);
  });

  it('without a passkey, turning codes off is not offered', async () => {
    const { sent } = serveSecurity(secondFactors({ passkeys: [] }));
    const { user } = renderApp('/security');
    const toggle = await screen.findByRole('switch', { name: 'Accept authenticator-app codes' });
    expect(toggle).toBeDisabled();
    expect(toggle).toHaveAccessibleDescription(
      'Add a passkey first: codes can be turned off only while you have one.',
    );
    await user.click(toggle);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(sent.totp).toHaveLength(0);
  });

  it('when the step-up lapsed, turning codes off asks for it in the same dialog, then acts', async () => {
    const { sent } = serveSecurity(undefined, { stepUpUntil: undefined, stepUpMethods: ['totp'] });
    const { user } = renderApp('/security');
    await user.click(await screen.findByRole('switch', { name: 'Accept authenticator-app codes' }));
    const dialog = screen.getByRole('dialog', { name: 'Turn off authenticator-app codes' });
    expect(
      within(dialog).queryByRole('button', { name: 'Turn off codes' }),
    ).not.toBeInTheDocument();
    await user.type(within(dialog).getByLabelText('Second-factor code'), '123456');
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Authenticator-app codes turned off.')).toBeInTheDocument();
    expect(sent.stepUps).toEqual([{ totp: '123456' }]);
    expect(sent.totp).toEqual([false]);
  });
});

describe('security after signing in with SSO', () => {
  it('has no authenticator section, and the step-up before adding a passkey is at the provider', async () => {
    serveSecurity(secondFactors({ passkeys: [], totp: { available: false, enabled: false } }), {
      method: 'sso',
      stepUpUntil: undefined,
      stepUpMethods: ['provider'],
    });
    server.use(serve('meta.get', () => HttpResponse.json(ssoMeta())));
    const { user } = renderApp('/security');
    await user.click(await screen.findByRole('button', { name: 'Add a passkey' }));

    const confirm = await screen.findByRole('link', { name: 'Confirm at Acme Okta' });
    expect(confirm).toHaveAttribute(
      'href',
      `/api/sso/step-up?returnTo=${encodeURIComponent('/security')}`,
    );
    expect(confirm).toHaveFocus();
    expect(screen.getByText(/come back here; then press Add a passkey again/)).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Authenticator app' })).not.toBeInTheDocument();
    expect(screen.queryByRole('switch')).not.toBeInTheDocument();
    expect(requestsTo('/api/passkeys/registration-options', 'POST')).toHaveLength(0);
  });
});
