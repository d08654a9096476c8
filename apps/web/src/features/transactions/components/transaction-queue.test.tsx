import type { IndexQueue } from '@card-console/shared/api/transaction-index';
import { indexQueueQuerySchema } from '@card-console/shared/api/transaction-index';
import { screen, waitFor } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  accountingCategories,
  financeSession,
  transaction,
  transactionNotes,
} from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { requestsTo, serve, server } from '../../../test/server';

const fresh = { syncing: false, days: 0, daysDone: 0 };
const ids = ['tx_1', 'tx_2', 'tx_3'];

/**
 * Three unreviewed transactions in the list; reviewing one takes it out of the list (as the
 * "Unreviewed" filter does), its neighbours stay the rows either side.
 */
function serveQueue() {
  const reviewed = new Set<string>();
  const patches: unknown[] = [];
  server.use(
    serve('transactions.get', ({ params }) =>
      HttpResponse.json(
        transaction({ id: String(params.id), description: `Purchase ${params.id}` }),
      ),
    ),
    serve('accountingCategories.list', () => HttpResponse.json({ items: accountingCategories })),
    serve('notes.update', async ({ request, params }) => {
      const body = (await request.json()) as { reviewed?: boolean };
      patches.push({ id: params.id, ...body });
      if (body.reviewed) reviewed.add(String(params.id));
      return HttpResponse.json(
        transactionNotes({
          transactionId: String(params.id),
          version: 1,
          ...(body.reviewed
            ? { review: { state: 'reviewed', by: 'me', at: '2026-03-06T09:00:00Z' } }
            : {}),
        }),
      );
    }),
    serve('index.queueNext', ({ request }) => {
      const q = indexQueueQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
      const after = ids.slice(ids.indexOf(q.transactionId) + 1).filter((id) => !reviewed.has(id));
      return HttpResponse.json(after[0] ? { next: { subAccountId: 'sa_ops', id: after[0] } } : {});
    }),
    serve('index.queue', ({ request }) => {
      const q = indexQueueQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
      const at = ids.indexOf(q.transactionId);
      const left = ids.filter((id) => !reviewed.has(id));
      const before = ids.slice(0, at).filter((id) => !reviewed.has(id));
      const after = ids.slice(at + 1).filter((id) => !reviewed.has(id));
      const answer: IndexQueue = {
        count: left.length,
        ...(reviewed.has(q.transactionId) ? {} : { position: before.length + 1 }),
        ...(before.length
          ? { previous: { subAccountId: 'sa_ops', id: before.at(-1) as string } }
          : {}),
        ...(after.length ? { next: { subAccountId: 'sa_ops', id: after[0] as string } } : {}),
        freshness: fresh,
      };
      return HttpResponse.json(answer);
    }),
  );
  return { patches };
}

describe('the review queue on a transaction opened from a filtered list', {
  timeout: 15_000,
}, () => {
  it('shows its place, moves by Previous, Next and the keys, and keeps the list for Back', async () => {
    serveQueue();
    const { user, router } = renderApp('/transactions/tx_2?review=unreviewed', {
      session: financeSession(),
    });
    const nav = await screen.findByRole('navigation', { name: 'Review queue' });
    await waitFor(() => expect(nav).toHaveTextContent('2 of 3'));
    // The queue asks for the list's filter, not its page.
    const asked = new URL(requestsTo('/api/index/transactions/queue')[0]?.url ?? '').searchParams;
    expect(Object.fromEntries(asked)).toEqual({ review: 'unreviewed', transactionId: 'tx_2' });

    await user.click(screen.getByRole('link', { name: 'Next →' }));
    await screen.findByRole('heading', { name: 'Purchase tx_3' });
    expect(router.state.location.search).toEqual({ review: 'unreviewed' });
    await waitFor(() =>
      expect(screen.getByRole('navigation', { name: 'Review queue' })).toHaveTextContent('3 of 3'),
    );
    // K goes back (no field has the focus); J at the last one does nothing.
    await user.keyboard('j');
    await user.keyboard('k');
    await screen.findByRole('heading', { name: 'Purchase tx_2' });
    // In a field, K is a letter typed.
    await user.type(screen.getByLabelText('Memo'), 'k');
    expect(screen.getByLabelText('Memo')).toHaveValue('k');
    expect(router.state.location.pathname).toBe('/transactions/tx_2');
    expect(screen.getByRole('link', { name: '← Back to transactions' })).toHaveAttribute(
      'href',
      '/transactions?review=unreviewed',
    );
  });

  it('Save and next saves, marks reviewed and opens the next still in the list; after the last it says so', async () => {
    const { patches } = serveQueue();
    const { user } = renderApp('/transactions/tx_1?review=unreviewed', {
      session: financeSession(),
    });
    await screen.findByRole('heading', { name: 'Purchase tx_1' });
    await user.type(await screen.findByLabelText('Memo'), 'Client lunch');
    await user.click(screen.getByRole('button', { name: 'Save and next' }));
    await screen.findByRole('heading', { name: 'Purchase tx_2' });
    expect(patches).toEqual([{ id: 'tx_1', version: 0, memo: 'Client lunch', reviewed: true }]);
    await waitFor(() =>
      expect(screen.getByRole('navigation', { name: 'Review queue' })).toHaveTextContent('1 of 2'),
    );
    // Ctrl+Enter in the memo is the same, by keyboard alone.
    await user.type(await screen.findByLabelText('Memo'), 'Taxi{Control>}{Enter}{/Control}');
    await screen.findByRole('heading', { name: 'Purchase tx_3' });
    await user.click(await screen.findByRole('button', { name: 'Save and next' }));
    expect(
      await screen.findByText(/That was the last transaction in this list/),
    ).toBeInTheDocument();
    expect(patches).toHaveLength(3);
  });

  it('Save and next opens the one read ahead when the next is not answered within seconds, and never says "the last" when it cannot tell', async () => {
    const { patches } = serveQueue();
    // The row after, asked after the save, never answers (a BFF or a network that stalls).
    server.use(serve('index.queueNext', () => new Promise<never>(() => {})));
    const { user } = renderApp('/transactions/tx_1?review=unreviewed', {
      session: financeSession(),
    });
    const nav = await screen.findByRole('navigation', { name: 'Review queue' });
    await waitFor(() => expect(nav).toHaveTextContent('1 of 3'));
    await user.type(await screen.findByLabelText('Memo'), 'Client lunch');
    await user.click(screen.getByRole('button', { name: 'Save and next' }));
    // The one the queue read ahead, within the wait.
    await screen.findByRole('heading', { name: 'Purchase tx_2' }, { timeout: 8_000 });
    expect(patches).toHaveLength(1);
  }, 20_000);

  it('Save and next, when neither the queue nor the row after can be read, says it saved and could not tell what is next', async () => {
    const { patches } = serveQueue();
    const unavailable = () =>
      HttpResponse.json(
        { code: 'upstream_unavailable', message: 'The card service is not answering.' },
        { status: 503 },
      );
    server.use(serve('index.queue', unavailable), serve('index.queueNext', unavailable));
    const { user } = renderApp('/transactions/tx_1?review=unreviewed', {
      session: financeSession(),
    });
    await screen.findByRole('heading', { name: 'Purchase tx_1' });
    await user.click(await screen.findByRole('button', { name: 'Save and next' }));
    expect(
      await screen.findByText(/Saved\. The next transaction in this list could not be read/),
    ).toBeInTheDocument();
    expect(screen.queryByText(/That was the last/)).toBeNull();
    expect(patches).toEqual([{ id: 'tx_1', version: 0, reviewed: true }]);
  });

  it('a detail opened from the whole list, unfiltered, has no queue and saves as before', async () => {
    serveQueue();
    renderApp('/transactions/tx_1', { session: financeSession() });
    await screen.findByRole('heading', { name: 'Purchase tx_1' });
    await screen.findByLabelText('Memo');
    expect(screen.queryByRole('navigation', { name: 'Review queue' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Save and next' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Save' })).toBeInTheDocument();
  });
});
