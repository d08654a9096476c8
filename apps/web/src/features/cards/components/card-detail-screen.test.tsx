import {
  type Card,
  cardPatchBodySchema,
  type RevealResponse,
  revealBodySchema,
} from '@card-console/shared/api/cards';
import { act, screen, waitFor, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeCvv, fakePan, grouped } from '../../../test/fake-secrets';
import {
  adminSession,
  card,
  financeSession,
  limitImpact,
  productionMeta,
} from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';

function serveCard(initial: Card = card()) {
  let current = initial;
  server.use(
    serve('cards.get', () => HttpResponse.json(current)),
    serve('cards.list', () => HttpResponse.json({ items: [current] })),
    serve('cards.limitImpact', () => HttpResponse.json(limitImpact())),
  );
  return { set: (next: Card) => (current = next) };
}

/** Opens the reveal dialog, gives a reason, reveals, and waits for the number on screen. */
async function revealWithReason(user: UserEvent, pan: string) {
  await user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
  await user.type(screen.getByLabelText('Reason'), 'Vendor setup');
  await user.click(screen.getByRole('button', { name: 'Reveal' }));
  expect(await screen.findByText(grouped(pan))).toBeInTheDocument();
}

/** A clipboard that holds what was last written (installed after user-event's own stub). */
function fakeClipboard(text = '') {
  const clipboard = {
    text,
    writeText: async (value: string) => {
      clipboard.text = value;
    },
    readText: async () => clipboard.text,
  };
  Object.defineProperty(navigator, 'clipboard', { value: clipboard, configurable: true });
  return clipboard;
}

function serveReveal(options: { stepUp?: boolean } = {}) {
  const pan = fakePan('4242');
  const cvv = fakeCvv();
  const bodies: unknown[] = [];
  server.use(
    serve('cards.reveal', async ({ request, params }) => {
      const body = revealBodySchema.parse(await request.json());
      bodies.push(body);
      if (options.stepUp && !body.totp) {
        return apiError(401, 'step_up_required', 'Confirm with a code.', {
          secondFactor: { methods: ['totp'] },
        });
      }
      if (body.totp && body.totp !== '123456') return apiError(401, 'invalid_totp', 'Wrong code.');
      const answer: RevealResponse = { cardId: String(params.id), last4: '4242', pan, cvv };
      return HttpResponse.json(answer, { headers: { 'Cache-Control': 'no-store' } });
    }),
  );
  return { pan, cvv, bodies };
}

afterEach(() => {
  Reflect.deleteProperty(document, 'visibilityState');
});

describe('card detail', () => {
  it('shows every field, masked, and no admin controls to finance', async () => {
    serveCard();
    renderApp('/cards/card_1', { session: financeSession() });
    expect(await screen.findByRole('heading', { name: 'Travel card' })).toBeInTheDocument();
    expect(screen.getByTestId('pan')).toHaveTextContent('•••• •••• •••• 4242');
    expect(screen.getByTestId('cvv')).toHaveTextContent('•••');
    for (const text of ['08/29', '$1.00', '$500.00', 'Monthly', '$5,000.00', 'America/New_York']) {
      expect(screen.getAllByText(text).length).toBeGreaterThan(0);
    }
    expect(screen.queryByRole('button', { name: 'Reveal card details' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Edit/ })).not.toBeInTheDocument();
  });

  describe('reveal', () => {
    it('needs a reason, asks for a code when the step-up lapsed, shows grouped values, caches nothing', async () => {
      serveCard();
      const { pan, cvv, bodies } = serveReveal({ stepUp: true });
      const { user, queryClient, router } = renderApp('/cards/card_1', { session: adminSession() });
      await user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
      const dialog = screen.getByRole('dialog', { name: 'Reveal card details' });

      await user.click(within(dialog).getByRole('button', { name: 'Reveal' }));
      expect(within(dialog).getByRole('alert')).toHaveTextContent('Give a reason');
      expect(bodies).toHaveLength(0);
      // A security code written in the reason is not sent: the reason is kept for good.
      const reason = within(dialog).getByLabelText('Reason');
      await user.type(reason, 'Caller read cvv 123');
      await user.click(within(dialog).getByRole('button', { name: 'Reveal' }));
      expect(within(dialog).getByRole('alert')).toHaveTextContent(
        'Take the security code out of the reason',
      );
      expect(bodies).toHaveLength(0);
      await user.clear(reason);

      await user.type(within(dialog).getByLabelText('Reason'), 'Hotel booking by phone');
      await user.click(within(dialog).getByRole('button', { name: 'Reveal' }));
      // The step-up is a step, not an error: the code field has focus, the instruction is calm.
      const code = await within(dialog).findByLabelText('Second-factor code');
      await waitFor(() => expect(code).toHaveFocus());
      expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
      expect(
        within(dialog).getByText('Enter the 6-digit code from your authenticator app.'),
      ).toBeInTheDocument();

      // Six digits reveal without another press, once.
      await user.type(code, '123456');
      expect(await screen.findByText(grouped(pan))).toBeInTheDocument();
      // Number, expiry and code together in one card-shaped panel, each copyable, and all at once.
      const panel = screen.getByRole('region', { name: 'Card number, expiry and security code' });
      expect(within(panel).getByTestId('cvv')).toHaveTextContent(cvv);
      expect(within(panel).getByTestId('expiry')).toHaveTextContent(/^\d{2}\/\d{2}$/);
      expect(within(panel).getByRole('button', { name: 'Copy card number' })).toBeInTheDocument();
      expect(within(panel).getByRole('button', { name: 'Copy expiry' })).toBeInTheDocument();
      expect(within(panel).getByRole('button', { name: 'Copy CVV' })).toBeInTheDocument();
      expect(within(panel).getByRole('button', { name: 'Copy all' })).toBeInTheDocument();
      expect(screen.getByText(/Hidden again in \d+ s/)).toBeInTheDocument();
      expect(bodies).toEqual([
        { reason: 'Hotel booking by phone' },
        { reason: 'Hotel booking by phone', totp: '123456' },
      ]);

      // Never in any cache, storage or the URL.
      const cached = JSON.stringify([
        queryClient
          .getQueryCache()
          .getAll()
          .map((q) => [q.queryKey, q.state]),
        queryClient
          .getMutationCache()
          .getAll()
          .map((m) => m.state),
      ]);
      expect(cached).not.toContain(pan);
      expect(cached).not.toContain(`"${cvv}"`);
      expect(JSON.stringify({ ...localStorage })).not.toContain(pan);
      expect(JSON.stringify({ ...sessionStorage })).not.toContain(pan);
      expect(router.state.location.href).not.toContain(pan);
    });

    it('asks for the code up front when the session says the step-up lapsed, and says when it is wrong', async () => {
      serveCard();
      serveReveal({ stepUp: true });
      const { user } = renderApp('/cards/card_1', {
        session: adminSession({ stepUpUntil: undefined }),
      });
      await user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
      const dialog = screen.getByRole('dialog');
      await user.type(within(dialog).getByLabelText('Reason'), 'Check');
      // Asked up front, calmly: the instruction is no error before a wrong code.
      expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
      await user.type(within(dialog).getByLabelText('Second-factor code'), '999999');
      expect(await within(dialog).findByRole('alert')).toHaveTextContent('That code is not right');
      expect(within(dialog).getByLabelText('Second-factor code')).toHaveValue('');
    });

    it('when wrong codes end the session, goes to sign-in with a message and a way back', async () => {
      serveCard();
      server.use(
        serve('cards.reveal', () =>
          apiError(401, 'session_ended', 'Too many wrong codes: you have been signed out.'),
        ),
        // The sign-in page it lands on reads which ways to sign in are on.
        serve('meta.get', () => HttpResponse.json(productionMeta)),
      );
      const { user, router } = renderApp('/cards/card_1', {
        session: adminSession({ stepUpUntil: undefined }),
      });
      await user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
      const dialog = screen.getByRole('dialog');
      await user.type(within(dialog).getByLabelText('Reason'), 'Check');
      await user.type(within(dialog).getByLabelText('Second-factor code'), '999999');
      expect(await screen.findByText(/Your session ended/)).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Sign in' })).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/sign-in');
      expect(router.state.location.search).toMatchObject({
        redirect: '/cards/card_1',
        expired: 'true',
      });
    });

    it('masks again when the countdown ends', async () => {
      vi.useFakeTimers({ shouldAdvanceTime: true });
      serveCard();
      const { pan } = serveReveal();
      const { user } = renderApp('/cards/card_1', {
        session: adminSession(),
        advanceTimers: vi.advanceTimersByTime,
      });
      await revealWithReason(user, pan);

      act(() => vi.advanceTimersByTime(10_000));
      expect(screen.getByText(/Hidden again in 2\d s/)).toBeInTheDocument();
      act(() => vi.advanceTimersByTime(21_000));
      expect(screen.queryByText(grouped(pan))).not.toBeInTheDocument();
      expect(screen.getByTestId('pan')).toHaveTextContent('•••• •••• •••• 4242');
      expect(screen.getByTestId('cvv')).toHaveTextContent('•••');
    });

    it('masks again when the tab is hidden', async () => {
      serveCard();
      const { pan } = serveReveal();
      const { user } = renderApp('/cards/card_1', { session: adminSession() });
      await revealWithReason(user, pan);

      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      act(() => {
        document.dispatchEvent(new Event('visibilitychange'));
      });
      expect(screen.queryByText(grouped(pan))).not.toBeInTheDocument();
      expect(screen.getByTestId('pan')).toHaveTextContent('•••• •••• •••• 4242');
    });

    it('wipes a copied value from the clipboard on "Hide now", and leaves it alone if nothing was copied', async () => {
      serveCard();
      const { pan } = serveReveal();
      const { user } = renderApp('/cards/card_1', { session: adminSession() });
      const clipboard = fakeClipboard('something of theirs');
      await revealWithReason(user, pan);
      await user.click(screen.getByRole('button', { name: 'Hide now' }));
      expect(clipboard.text).toBe('something of theirs');

      await revealWithReason(user, pan);
      await user.click(screen.getByRole('button', { name: 'Copy card number' }));
      expect(await screen.findByText(/number copied/)).toBeInTheDocument();
      expect(clipboard.text).toBe(pan);
      await user.click(screen.getByRole('button', { name: 'Hide now' }));
      await waitFor(() => expect(clipboard.text).toBe(''));
    });

    it('a preset reason is one press; "Copy all" copies number, expiry and CVV together and says so politely', async () => {
      serveCard();
      const { pan, cvv, bodies } = serveReveal();
      const { user } = renderApp('/cards/card_1', { session: adminSession() });
      const clipboard = fakeClipboard();
      await user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
      const dialog = screen.getByRole('dialog', { name: 'Reveal card details' });
      // Focus starts in the free text; the presets sit beside it.
      expect(within(dialog).getByLabelText('Reason')).toHaveFocus();
      const preset = within(dialog).getByRole('button', { name: 'Vendor payment' });
      await user.click(preset);
      expect(preset).toHaveAttribute('aria-pressed', 'true');
      expect(within(dialog).getByLabelText('Reason')).toHaveValue('Vendor payment');
      await user.click(within(dialog).getByRole('button', { name: 'Reveal' }));
      expect(await screen.findByText(grouped(pan))).toBeInTheDocument();
      expect(bodies).toEqual([{ reason: 'Vendor payment' }]);

      await user.click(screen.getByRole('button', { name: 'Copy all' }));
      const said = await screen.findByText('Number, expiry and CVV copied');
      expect(said).toHaveAttribute('role', 'status');
      expect(clipboard.text).toBe(`Card number: ${pan}\nExpiry: 08/29\nCVV: ${cvv}`);
      // The countdown stays, and is not read out every second.
      expect(screen.getByText(/Hidden again in \d+ s/)).not.toHaveAttribute('role', 'status');
      await user.click(screen.getByRole('button', { name: 'Hide now' }));
      await waitFor(() => expect(clipboard.text).toBe(''));
    });

    it('wipes a copied value when the countdown ends', async () => {
      vi.useFakeTimers({ shouldAdvanceTime: true });
      serveCard();
      const { cvv, pan } = serveReveal();
      const { user } = renderApp('/cards/card_1', {
        session: adminSession(),
        advanceTimers: vi.advanceTimersByTime,
      });
      const clipboard = fakeClipboard();
      await revealWithReason(user, pan);
      await user.click(screen.getByRole('button', { name: 'Copy CVV' }));
      expect(await screen.findByText(/CVV copied/)).toBeInTheDocument();
      expect(clipboard.text).toBe(cvv);
      act(() => vi.advanceTimersByTime(31_000));
      await waitFor(() => expect(clipboard.text).toBe(''));
    });

    it('keeps a copied value while the tab is hidden (it may be pasted elsewhere) and wipes it at the next focus', async () => {
      serveCard();
      const { pan } = serveReveal();
      const { user } = renderApp('/cards/card_1', { session: adminSession() });
      const clipboard = fakeClipboard();
      await revealWithReason(user, pan);
      await user.click(screen.getByRole('button', { name: 'Copy card number' }));
      expect(await screen.findByText(/number copied/)).toBeInTheDocument();
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      act(() => {
        document.dispatchEvent(new Event('visibilitychange'));
      });
      expect(screen.getByTestId('pan')).toHaveTextContent('•••• •••• •••• 4242');
      await new Promise((settle) => setTimeout(settle, 50));
      expect(clipboard.text).toBe(pan);

      act(() => {
        window.dispatchEvent(new Event('focus'));
      });
      await waitFor(() => expect(clipboard.text).toBe(''));
    });

    it('masks again on navigation', async () => {
      serveCard();
      const { pan } = serveReveal();
      const { user } = renderApp('/cards/card_1', { session: adminSession() });
      await revealWithReason(user, pan);

      await user.click(screen.getByRole('link', { name: '← All cards' }));
      await screen.findByRole('heading', { name: 'Cards' });
      await user.click(screen.getByRole('link', { name: 'Travel card' }));
      await screen.findByRole('heading', { name: 'Travel card' });
      expect(screen.queryByText(grouped(pan))).not.toBeInTheDocument();
      expect(screen.getByTestId('pan')).toHaveTextContent('•••• •••• •••• 4242');
    });
  });

  describe('editing name and limits', () => {
    it('validates dollars, confirms old → new, saves, and updates the card in place', async () => {
      const served = serveCard();
      const patches: unknown[] = [];
      server.use(
        serve('cards.update', async ({ request }) => {
          const body = cardPatchBodySchema.parse(await request.json());
          patches.push(body);
          const updated = card({
            transactionSizeLimit: {
              minimumCents: 100,
              maximumCents: body.transactionSizeLimit?.maximumCents,
            },
          });
          served.set(updated);
          return HttpResponse.json(updated);
        }),
      );
      const { user } = renderApp('/cards/card_1', { session: adminSession() });
      await user.click(await screen.findByRole('button', { name: 'Edit name and limits' }));
      const max = screen.getByLabelText('Maximum per transaction (USD)');
      expect(max).toHaveValue('500.00');

      await user.clear(max);
      await user.type(max, '12.345');
      await user.click(screen.getByRole('button', { name: 'Review changes' }));
      expect(screen.getByText('Use at most two decimal places.')).toBeInTheDocument();
      expect(max).toHaveAttribute('aria-invalid', 'true');

      await user.clear(max);
      await user.type(max, '0.5');
      await user.click(screen.getByRole('button', { name: 'Review changes' }));
      expect(screen.getByText('The minimum must not be above the maximum.')).toBeInTheDocument();

      await user.clear(max);
      await user.type(max, '0');
      expect(screen.getByText(/\$0\.00 maximum blocks every purchase/)).toBeInTheDocument();

      await user.clear(max);
      await user.type(max, '250');
      await user.click(screen.getByRole('button', { name: 'Review changes' }));
      const confirm = screen.getByRole('region', { name: 'Confirm changes' });
      expect(confirm).toHaveTextContent('Maximum per transaction: $500.00 → $250.00');
      expect(patches).toHaveLength(0);

      const cardReads = requestsTo('/api/cards/card_1').length;
      await user.click(screen.getByRole('button', { name: 'Confirm changes' }));
      expect(await screen.findByText('Card updated.')).toBeInTheDocument();
      expect(patches).toEqual([
        {
          transactionSizeLimit: { maximumCents: 25_000 },
          expected: { minimumCents: 100, maximumCents: 50_000 },
        },
      ]);
      expect(screen.getByText('$250.00')).toBeInTheDocument();
      // Updated from the PATCH answer, not by reloading the card.
      expect(requestsTo('/api/cards/card_1')).toHaveLength(cardReads);
    });

    it("shows the server's message when the change is refused", async () => {
      serveCard();
      server.use(
        serve('cards.update', () =>
          apiError(
            422,
            'upstream_rejected',
            'The card service refused: limit too high for program',
          ),
        ),
      );
      const { user } = renderApp('/cards/card_1', { session: adminSession() });
      await user.click(await screen.findByRole('button', { name: 'Edit name and limits' }));
      const name = screen.getByLabelText('Name');
      await user.clear(name);
      await user.type(name, 'Travel EU');
      await user.click(screen.getByRole('button', { name: 'Review changes' }));
      expect(screen.getByRole('region', { name: 'Confirm changes' })).toHaveTextContent(
        'Name: Travel card → Travel EU',
      );
      await user.click(screen.getByRole('button', { name: 'Confirm changes' }));
      expect(await screen.findByRole('alert')).toHaveTextContent(
        'The change was refused: The card service refused: limit too high for program',
      );
      expect(screen.getByRole('heading', { name: 'Travel card' })).toBeInTheDocument();
    });

    it('invalidates any loaded card list so it shows the change', async () => {
      const served = serveCard();
      server.use(
        serve('cards.update', async ({ request }) => {
          const body = cardPatchBodySchema.parse(await request.json());
          const updated = card({ name: body.name ?? 'Travel card' });
          served.set(updated);
          return HttpResponse.json(updated);
        }),
      );
      const { user } = renderApp('/cards', { session: adminSession() });
      await user.click(await screen.findByRole('link', { name: 'Travel card' }));
      await user.click(await screen.findByRole('button', { name: 'Edit name and limits' }));
      const name = screen.getByLabelText('Name');
      await user.clear(name);
      await user.type(name, 'Renamed');
      await user.click(screen.getByRole('button', { name: 'Review changes' }));
      await user.click(screen.getByRole('button', { name: 'Confirm changes' }));
      expect(await screen.findByRole('heading', { name: 'Renamed' })).toBeInTheDocument();
      await user.click(screen.getByRole('link', { name: '← All cards' }));
      expect(await screen.findByRole('link', { name: 'Renamed' })).toBeInTheDocument();
    });
  });
});
