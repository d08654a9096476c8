// Ids and cursors as a card service that follows the contract may hand them out (any string:
// spaces, "+", "/", "%", "?", "#", unicode) go through the real router, its links and the API
// client and come back unchanged: Cards → Load more → card detail → its transactions, and
// Transactions → Load more → a transaction, never show an error screen. The mock BFF checks
// every query with the BFF's own schemas and answers only the exact ids and cursors it issued.
import { type Card, cardListQuerySchema } from '@card-console/shared/api/cards';
import { subAccountListQuerySchema } from '@card-console/shared/api/sub-accounts';
import { type IndexPage, indexQuerySchema } from '@card-console/shared/api/transaction-index';
import { screen, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { card, financeSession, transaction } from '../../test/fixtures';
import { renderApp } from '../../test/render-app';
import { queryOf } from '../../test/serve-index';
import { apiError, serve, server } from '../../test/server';

const CARD_A = 'card one/+%é';
const CARD_B = 'a/b?c=d#e 100% 卡片 😀';
const CARD_CURSOR = 'quaerat sit+/=%25&x=1 ключ 🔑';
const SUB_A = 'ops team/1';
const SUB_B = 'a+b=c%2F&d';
const TX_CURSOR = 'ab+/cd== ?#';
const TX_B = 'tx 2/+%?#é';

/** The query as the BFF reads it, checked with the BFF's own schema (a 400 otherwise). */
function query<T>(request: Request, parse: (q: unknown) => T): T | Response {
  try {
    return parse(Object.fromEntries(new URL(request.url).searchParams));
  } catch (error) {
    return apiError(400, 'invalid_query', String(error));
  }
}

/** The path's last segment, decoded as the BFF's router does. */
const lastSegment = (request: Request) =>
  decodeURIComponent(new URL(request.url).pathname.split('/').at(-1) ?? '');

const stray: string[] = [];
afterEach(() => {
  expect(stray, 'requests the mock BFF did not expect').toEqual([]);
  stray.length = 0;
});

function serveProgram() {
  const cards: Record<string, Card> = {
    [CARD_A]: card({ id: CARD_A, name: 'Alpha' }),
    [CARD_B]: card({ id: CARD_B, name: 'Bravo', last4: '1111' }),
  };
  const txA = transaction({ id: 'tx 1', description: 'Purchase one', cardId: CARD_B });
  const txB = transaction({ id: TX_B, description: 'Purchase two', cardId: CARD_B });
  server.use(
    serve('subAccounts.list', ({ request }) => {
      const q = query(request, (v) => subAccountListQuerySchema.parse(v));
      if (q instanceof Response) return q;
      return HttpResponse.json({
        items: [
          { id: SUB_A, name: 'Operations' },
          { id: SUB_B, name: 'Marketing' },
        ],
      });
    }),
    serve('cards.list', ({ request }) => {
      const q = query(request, (v) => cardListQuerySchema.parse(v));
      if (q instanceof Response) return q;
      if (q.cursor === undefined) {
        return HttpResponse.json({ items: [cards[CARD_A]], nextCursor: CARD_CURSOR });
      }
      if (q.cursor === CARD_CURSOR) return HttpResponse.json({ items: [cards[CARD_B]] });
      stray.push(`cards cursor ${JSON.stringify(q.cursor)}`);
      return apiError(400, 'invalid_query', 'unknown cursor');
    }),
    http.get(/\/api\/cards\/[^/]+$/, ({ request }) => {
      const id = lastSegment(request);
      const found = cards[id];
      if (!found) stray.push(`card ${JSON.stringify(id)}`);
      return found ? HttpResponse.json(found) : apiError(404, 'not_found', 'No such card.');
    }),
    serve('index.transactions', ({ request }) => {
      let q: ReturnType<typeof indexQuerySchema.parse>;
      try {
        q = indexQuerySchema.parse(queryOf(request.url));
      } catch (error) {
        return apiError(400, 'invalid_query', String(error));
      }
      const answer = (items: (typeof txA)[], nextCursor?: string): IndexPage => ({
        items: items.map((t) => ({ ...t, subAccountId: SUB_B })),
        ...(nextCursor ? { nextCursor } : {}),
        freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: 1_772_000_000_000 },
      });
      const unknownSub = q.subAccountId?.some((id) => id !== SUB_A && id !== SUB_B);
      const unknownCard = q.cardId?.some((id) => id !== CARD_A && id !== CARD_B);
      if (unknownSub || unknownCard) stray.push(`transactions of ${JSON.stringify(q)}`);
      if (
        (q.subAccountId !== undefined && !q.subAccountId.includes(SUB_B)) ||
        (q.cardId !== undefined && !q.cardId.includes(CARD_B))
      ) {
        return HttpResponse.json(answer([]));
      }
      if (q.cursor === undefined) return HttpResponse.json(answer([txA], TX_CURSOR));
      if (q.cursor === TX_CURSOR) return HttpResponse.json(answer([txB]));
      stray.push(`transactions cursor ${JSON.stringify(q.cursor)}`);
      return apiError(400, 'invalid_query', 'unknown cursor');
    }),
    http.get(/\/api\/transactions\/[^/]+$/, ({ request }) => {
      const id = lastSegment(request);
      const found = [txA, txB].find((t) => t.id === id);
      if (!found) stray.push(`transaction ${JSON.stringify(id)}`);
      return found ? HttpResponse.json(found) : apiError(404, 'not_found', 'No such transaction.');
    }),
  );
}

const noErrorScreen = () => {
  // An empty live region (the receipts' failures, kept on the page to be announced) says nothing.
  const said = screen.queryAllByRole('alert').filter((alert) => alert.textContent?.trim());
  expect(said.map((alert) => alert.textContent)).toEqual([]);
  expect(screen.queryByText(/not found/i)).not.toBeInTheDocument();
};

describe('ids and cursors with spaces, "+", "/", "%" and unicode', () => {
  it('Cards: Load more, open the card from the new page, then its transactions', async () => {
    serveProgram();
    const { user, router } = renderApp('/cards', { session: financeSession() });
    await screen.findByRole('row', { name: /Alpha/ });
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    const bravo = await screen.findByRole('row', { name: /Bravo/ });
    noErrorScreen();

    await user.click(within(bravo).getByRole('link', { name: 'Bravo' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Bravo' })).toBeInTheDocument();
    expect(router.state.matches.at(-1)?.params).toEqual({ cardId: CARD_B });
    expect(screen.getByText(CARD_B)).toBeInTheDocument();
    noErrorScreen();

    await user.click(screen.getByRole('link', { name: 'Transactions on this card' }));
    await screen.findByRole('heading', { level: 1, name: 'Transactions' });
    expect(router.state.location.search).toMatchObject({ cardId: CARD_B });
    await screen.findByRole('row', { name: /Purchase one/ });
    noErrorScreen();
  });

  it('Transactions: another sub account, Load more, then a transaction from the new page', async () => {
    serveProgram();
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('heading', { level: 1, name: 'Transactions' });
    expect(router.state.location.search).toEqual({});
    await user.selectOptions(screen.getByLabelText('Sub account'), SUB_A);
    await screen.findByText('No transactions match these filters.');
    await user.selectOptions(screen.getByLabelText('Sub account'), SUB_B);
    await screen.findByRole('row', { name: /Purchase one/ });
    expect(router.state.location.search).toMatchObject({ subAccountId: SUB_B });

    await user.click(screen.getByRole('button', { name: 'Load more' }));
    const two = await screen.findByRole('row', { name: /Purchase two/ });
    noErrorScreen();

    await user.click(within(two).getByRole('link', { name: /Purchase two/ }));
    await screen.findByRole('heading', { level: 1, name: /Purchase two/ });
    expect(router.state.matches.at(-1)?.params).toEqual({ transactionId: TX_B });
    noErrorScreen();
  });

  it('every sub account is listed without naming one, even one whose id a link cannot hold', async () => {
    serveProgram();
    server.use(
      serve('subAccounts.list', () =>
        HttpResponse.json({
          items: [
            { id: 'tab\there', name: 'Unreachable' },
            { id: SUB_B, name: 'Marketing' },
          ],
        }),
      ),
    );
    const { router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Purchase one/ });
    expect(router.state.location.search).toEqual({});
    noErrorScreen();
  });

  it('a link that names the sub account and the card opens that very filter', async () => {
    serveProgram();
    const { router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('heading', { level: 1, name: 'Transactions' });
    await router.navigate({
      to: '/transactions',
      search: { subAccountId: SUB_B, cardId: [CARD_B] },
    });
    await screen.findByRole('row', { name: /Purchase one/ });
    // The address the router wrote reads back as the same ids (a reload, a shared link).
    const again = renderApp(router.state.location.href, { session: financeSession() });
    await within(again.container).findByRole('row', { name: /Purchase one/ });
    expect(again.router.state.location.search).toMatchObject({
      subAccountId: SUB_B,
      cardId: CARD_B,
    });
    noErrorScreen();
  });
});
