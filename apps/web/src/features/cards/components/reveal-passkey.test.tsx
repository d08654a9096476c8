import { type RevealResponse, revealBodySchema } from '@card-console/shared/api/cards';
import type { StepUpMethod } from '@card-console/shared/api/session';
import { startAuthentication } from '@simplewebauthn/browser';
import { screen, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeCvv, fakePan, grouped } from '../../../test/fake-secrets';
import { adminSession, card, passkeyAssertion, ssoMeta } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve as serveEndpoint, server } from '../../../test/server';

vi.mock('@simplewebauthn/browser', () => ({
  startAuthentication: vi.fn(),
  startRegistration: vi.fn(),
}));
const startAuth = vi.mocked(startAuthentication);

const stepUpOptions = {
  challenge: 'step-up-challenge',
  allowCredentials: [{ id: 'cred-1', type: 'public-key' }],
};

/** A card whose reveal wants a fresh second factor unless one comes with it. */
function serve(methods: StepUpMethod[] = ['passkey', 'totp']) {
  const pan = fakePan('4242');
  const cvv = fakeCvv();
  const bodies: unknown[] = [];
  server.use(
    serveEndpoint('cards.get', () => HttpResponse.json(card())),
    serveEndpoint('session.stepUpOptions', () => HttpResponse.json(stepUpOptions)),
    serveEndpoint('cards.reveal', async ({ request, params }) => {
      const body = revealBodySchema.parse(await request.json());
      bodies.push(body);
      if (!body.passkey && !body.totp) {
        return apiError(401, 'step_up_required', 'Confirm it is you.', {
          secondFactor: { methods },
        });
      }
      if (body.passkey && body.passkey.id !== 'cred-1') {
        return apiError(401, 'invalid_passkey', 'Not accepted.');
      }
      const answer: RevealResponse = { cardId: String(params.id), last4: '4242', pan, cvv };
      return HttpResponse.json(answer);
    }),
  );
  return { pan, cvv, bodies };
}

beforeEach(() => {
  startAuth.mockReset();
});

describe('reveal with a passkey', () => {
  it('when the step-up lapsed, fetches a challenge, signs it, and sends the assertion with the reveal', async () => {
    const { pan, bodies } = serve();
    startAuth.mockResolvedValue(passkeyAssertion('cred-1'));
    const { user } = renderApp('/cards/card_1', {
      session: adminSession({ stepUpUntil: undefined, stepUpMethods: ['passkey', 'totp'] }),
    });
    await user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
    const dialog = screen.getByRole('dialog', { name: 'Reveal card details' });
    const sessionReads = requestsTo('/api/session').length;

    // Up front: both ways the session offers; nothing is asked before there is a reason.
    await user.click(within(dialog).getByRole('button', { name: 'Use a passkey' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Give a reason');
    expect(requestsTo('/api/session/step-up-options', 'POST')).toHaveLength(0);
    expect(within(dialog).getByLabelText('Second-factor code')).toBeInTheDocument();

    await user.type(within(dialog).getByLabelText('Reason'), 'Supplier booking');
    await user.click(within(dialog).getByRole('button', { name: 'Use a passkey' }));
    expect(await screen.findByText(grouped(pan))).toBeInTheDocument();
    expect(requestsTo('/api/session/step-up-options', 'POST')).toHaveLength(1);
    expect(startAuth).toHaveBeenCalledExactlyOnceWith({ optionsJSON: stepUpOptions });
    expect(bodies).toEqual([{ reason: 'Supplier booking', passkey: passkeyAssertion('cred-1') }]);
    // The step-up was renewed: the session (its new deadline) is read again.
    expect(requestsTo('/api/session').length).toBeGreaterThan(sessionReads);
  });

  it('when the server asks for a step-up the session did not expect, offers what its 401 says', async () => {
    const { pan, bodies } = serve(['passkey']);
    startAuth.mockResolvedValue(passkeyAssertion('cred-1'));
    const { user } = renderApp('/cards/card_1', {
      session: adminSession({ stepUpMethods: ['passkey', 'totp'] }),
    });
    await user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
    const dialog = screen.getByRole('dialog');
    expect(within(dialog).queryByRole('button', { name: 'Use a passkey' })).not.toBeInTheDocument();
    await user.type(within(dialog).getByLabelText('Reason'), 'Supplier booking');
    await user.click(within(dialog).getByRole('button', { name: 'Reveal' }));

    const passkey = await within(dialog).findByRole('button', { name: 'Use a passkey' });
    expect(passkey).toHaveFocus();
    // The step is asked for calmly: no error, since nothing went wrong.
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
    expect(within(dialog).getByText('Use a passkey.')).toBeInTheDocument();
    // Only a passkey was offered: no code field, and Reveal is the passkey's button now.
    expect(within(dialog).queryByLabelText('Second-factor code')).not.toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Reveal' })).not.toBeInTheDocument();

    await user.click(passkey);
    expect(await screen.findByText(grouped(pan))).toBeInTheDocument();
    expect(bodies).toEqual([
      { reason: 'Supplier booking' },
      { reason: 'Supplier booking', passkey: passkeyAssertion('cred-1') },
    ]);
  });

  it('a cancelled passkey sends no reveal and says so; a refused one says so too', async () => {
    const { bodies } = serve();
    startAuth.mockRejectedValueOnce(
      Object.assign(new Error('timed out or not allowed'), { name: 'NotAllowedError' }),
    );
    startAuth.mockResolvedValueOnce(passkeyAssertion('cred-other'));
    const { user } = renderApp('/cards/card_1', {
      session: adminSession({ stepUpUntil: undefined, stepUpMethods: ['passkey', 'totp'] }),
    });
    await user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
    const dialog = screen.getByRole('dialog');
    await user.type(within(dialog).getByLabelText('Reason'), 'Supplier booking');
    await user.click(within(dialog).getByRole('button', { name: 'Use a passkey' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'The passkey was not used: the request was cancelled or timed out. You can also enter the 6-digit code.',
    );
    expect(bodies).toHaveLength(0);

    await user.click(within(dialog).getByRole('button', { name: 'Use a passkey' }));
    expect(await within(dialog).findByText(/That passkey was not accepted/)).toBeInTheDocument();
    expect(screen.getByTestId('pan')).toHaveTextContent('•••• •••• •••• 4242');
  });

  it('someone with no passkey yet is pointed to the Security page', async () => {
    serve();
    server.use(
      serveEndpoint('session.stepUpOptions', () =>
        apiError(409, 'no_passkeys', 'No passkeys enrolled.'),
      ),
    );
    const { user } = renderApp('/cards/card_1', {
      session: adminSession({ stepUpUntil: undefined, stepUpMethods: ['passkey', 'totp'] }),
    });
    await user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
    const dialog = screen.getByRole('dialog');
    await user.type(within(dialog).getByLabelText('Reason'), 'Supplier booking');
    await user.click(within(dialog).getByRole('button', { name: 'Use a passkey' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'You have no passkey yet: add one on the Security page',
    );
    expect(startAuth).not.toHaveBeenCalled();
    expect(within(dialog).queryByRole('button', { name: 'Use a passkey' })).not.toBeInTheDocument();
  });
});

describe('reveal after signing in with SSO', () => {
  it('offers to confirm at the provider, coming back to this card to press Reveal again', async () => {
    serve(['provider']);
    server.use(serveEndpoint('meta.get', () => HttpResponse.json(ssoMeta())));
    const { user } = renderApp('/cards/card_1', {
      session: adminSession({
        method: 'sso',
        stepUpUntil: undefined,
        stepUpMethods: ['provider'],
      }),
    });
    await user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
    const dialog = screen.getByRole('dialog');
    const confirm = await within(dialog).findByRole('link', { name: 'Confirm at Acme Okta' });
    expect(confirm).toHaveAttribute(
      'href',
      `/api/sso/step-up?returnTo=${encodeURIComponent('/cards/card_1')}`,
    );
    expect(dialog).toHaveTextContent(
      'You sign in there again and come back here; your reason is kept for Reveal.',
    );
    expect(within(dialog).queryByLabelText('Second-factor code')).not.toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Use a passkey' })).not.toBeInTheDocument();
  });

  it('keeps the reason typed across the trip: back from the provider, the dialog is open with it', async () => {
    serve(['provider']);
    server.use(serveEndpoint('meta.get', () => HttpResponse.json(ssoMeta())));
    const session = { method: 'sso' as const, stepUpMethods: ['provider' as const] };
    const first = renderApp('/cards/card_1', {
      session: adminSession({ ...session, stepUpUntil: undefined }),
    });
    await first.user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
    const dialog = screen.getByRole('dialog');
    await first.user.click(within(dialog).getByLabelText('Reason'));
    await first.user.paste('Vendor portal renewal');
    // The browser would leave for the provider: keep jsdom from trying to navigate.
    const stay = (event: Event) => event.preventDefault();
    document.addEventListener('click', stay);
    try {
      await first.user.click(
        await within(dialog).findByRole('link', { name: 'Confirm at Acme Okta' }),
      );
    } finally {
      document.removeEventListener('click', stay);
    }
    first.unmount();

    // Back, stepped up: the reveal dialog is open with the reason, and Reveal sends it.
    const bodies: unknown[] = [];
    server.use(
      serveEndpoint('cards.reveal', async ({ request }) => {
        bodies.push(await request.json());
        const answer: RevealResponse = {
          cardId: 'card_1',
          last4: '4242',
          pan: fakePan('4242'),
          cvv: fakeCvv(),
        };
        return HttpResponse.json(answer);
      }),
    );
    const back = renderApp('/cards/card_1', {
      session: adminSession({ ...session, stepUpUntil: Date.now() + 60_000 }),
    });
    const reopened = await screen.findByRole('dialog');
    expect(within(reopened).getByLabelText('Reason')).toHaveValue('Vendor portal renewal');
    await back.user.click(within(reopened).getByRole('button', { name: 'Reveal' }));
    await screen.findByRole('button', { name: 'Hide now' });
    expect(bodies).toEqual([{ reason: 'Vendor portal renewal' }]);
    // The kept reason is gone once used (the tab keeps other, unrelated keys of its own).
    expect(sessionStorage.getItem('card-console:reveal-draft')).toBeNull();
    expect(JSON.stringify({ ...sessionStorage })).not.toContain('Vendor portal renewal');
  });

  it('a reason kept for another card, or too long ago, is not used', async () => {
    serve(['provider']);
    server.use(serveEndpoint('meta.get', () => HttpResponse.json(ssoMeta())));
    const { keepRevealDraft } = await import('../reveal-draft');
    const eleven = 11 * 60_000;
    for (const keep of [
      () => keepRevealDraft('card_2', 'for another card'),
      () =>
        sessionStorage.setItem(
          'card-console:reveal-draft',
          JSON.stringify({ cardId: 'card_1', reason: 'stale', savedAt: Date.now() - eleven }),
        ),
    ]) {
      keep();
      const view = renderApp('/cards/card_1', {
        session: adminSession({
          method: 'sso',
          stepUpUntil: undefined,
          stepUpMethods: ['provider'],
        }),
      });
      // Not opened by itself: the person opens it, and finds it empty.
      await view.user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
      expect(within(screen.getByRole('dialog')).getByLabelText('Reason')).toHaveValue('');
      view.unmount();
      sessionStorage.clear();
    }
  });
});
