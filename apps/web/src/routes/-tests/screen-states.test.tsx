import { screen } from '@testing-library/react';
import { delay, HttpResponse, http, type JsonBodyType } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  adminSession,
  auditRecord,
  card,
  secondFactors,
  subAccounts,
  transaction,
} from '../../test/fixtures';
import { renderApp } from '../../test/render-app';
import { indexTotalsOf } from '../../test/serve-index';
import { apiError, serve, server } from '../../test/server';

/** Every screen's main data, slow enough that the loading state shows. */
function serveSlowly(ms: number) {
  const slow = async (body: JsonBodyType) => {
    await delay(ms);
    return HttpResponse.json(body);
  };
  server.use(
    serve('subAccounts.list', () => slow({ items: subAccounts })),
    serve('cards.list', () => slow({ items: [card()] })),
    serve('cards.get', () => slow(card())),
    serve('index.transactions', () =>
      slow({
        items: [{ ...transaction(), subAccountId: 'sa_ops' }],
        summary: indexTotalsOf([transaction()]),
        freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: 1_772_000_000_000 },
      }),
    ),
    serve('transactions.get', () => slow(transaction())),
    serve('audit.list', () => slow({ items: [auditRecord()] })),
    serve('security.secondFactors', () => slow(secondFactors())),
    serve('securityPolicy.get', () => slow({ requireSecondFactor: false })),
  );
}

const screens: [path: string, loaded: RegExp | string][] = [
  ['/sub-accounts', 'Sub accounts'],
  ['/cards', 'Cards'],
  ['/cards/card_1', 'Travel card'],
  ['/transactions', 'Transactions'],
  ['/transactions/tx_1', 'Coffee beans'],
  ['/audit', 'Audit'],
  ['/security', 'Security'],
];

describe('every screen', () => {
  it.each(screens)('%s shows "Loading…" and then its content', async (path, heading) => {
    serveSlowly(400);
    renderApp(path, { session: adminSession() });
    expect(await screen.findByText('Loading…')).toBeInTheDocument();
    expect(
      await screen.findByRole('heading', { level: 1, name: heading }, { timeout: 3000 }),
    ).toBeInTheDocument();
    expect(screen.queryByText('Loading…')).not.toBeInTheDocument();
  });

  it.each(screens)('%s shows an error with its request id and a Retry', async (path) => {
    serveSlowly(0);
    server.use(
      http.get(/\/api\/(cards|transactions|index|audit|second-factors)/, () =>
        apiError(502, 'upstream_error', 'The card service failed.'),
      ),
      serve('subAccounts.list', () => apiError(502, 'upstream_error', 'The card service failed.')),
    );
    renderApp(path, { session: adminSession() });
    expect(await screen.findByText('The card service failed.')).toBeInTheDocument();
    expect(screen.getByText('req-upstream_error')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
