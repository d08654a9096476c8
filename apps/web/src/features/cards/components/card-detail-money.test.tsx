import type { IndexCard } from '@card-console/shared/api/transaction-index';
import { screen, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { card, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { indexRow } from '../../../test/serve-index';
import { serve, server } from '../../../test/server';

function serveCard(money: Partial<IndexCard>, overrides: Parameters<typeof card>[0] = {}) {
  server.use(
    serve('cards.get', () => HttpResponse.json(card(overrides))),
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('index.card', () =>
      HttpResponse.json<IndexCard>({
        subAccountIds: ['sa_ops'],
        recent: [],
        freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: Date.now() },
        ...money,
      }),
    ),
  );
}

describe("card detail: the card's money, from the index", () => {
  it('shows what it spent of its limit in the current window, the sub account it spends from and its latest transactions', async () => {
    serveCard({
      subAccountIds: ['sa_ops', 'sa_mkt'],
      utilization: {
        preset: 'monthly',
        limitCents: 500_000,
        window: { fromDay: '2026-11-01', toDay: '2026-11-30', timeZone: 'America/New_York' },
        spentCents: 412_345,
      },
      recent: [indexRow({ id: 'tx_9', description: 'Hotel night', amountCents: -20_000 })],
    });
    renderApp('/cards/card_1', { session: financeSession() });
    expect(await screen.findByText(/^Spent this month:/)).toHaveTextContent(
      'Spent this month: $4,123.45 of $5,000.00',
    );
    const meter = screen.getByRole('meter', { name: 'Spent $4,123.45 of $5,000.00' });
    expect(meter).toHaveAttribute('value', '412345');
    expect(meter).toHaveAttribute('max', '500000');
    expect(
      screen.getByText(/Nov 1, 2026 – Nov 30, 2026 \(America\/New_York\)/),
    ).toBeInTheDocument();
    const activity = screen
      .getByRole('heading', { name: 'Activity' })
      .closest('div') as HTMLElement;
    expect(within(activity).getByText('Operations, Marketing')).toBeInTheDocument();
    expect(within(activity).getByRole('link', { name: 'Hotel night' })).toHaveAttribute(
      'href',
      '/transactions/tx_9',
    );
  });

  it('says when the spend against a limit cannot be known ("collective")', async () => {
    serveCard(
      { utilization: { preset: 'collective', limitCents: 100_000 } },
      {
        utilizationLimit: {
          preset: 'collective',
          limitCents: 100_000,
          timezone: 'UTC',
          startDate: '2026-01-01',
        },
      },
    );
    renderApp('/cards/card_1', { session: financeSession() });
    expect(
      await screen.findByText(/Spend against this limit is unknown: .*“collective”/),
    ).toBeInTheDocument();
    expect(screen.queryByRole('meter')).not.toBeInTheDocument();
    // The preset as a label, in sentence case.
    expect(screen.getByText('Preset').nextElementSibling).toHaveTextContent(/^Collective$/);
  });

  it('over the limit says so', async () => {
    serveCard({
      utilization: {
        preset: 'daily',
        limitCents: 10_000,
        window: { fromDay: '2026-11-26', toDay: '2026-11-26', timeZone: 'UTC' },
        spentCents: 12_500,
      },
    });
    renderApp('/cards/card_1', { session: financeSession() });
    expect(await screen.findByText(/^Spent today:/)).toHaveTextContent(
      'Spent today: $125.00 of $100.00 (over the limit)',
    );
  });

  it('a window where more was refunded than charged: its spend below 0, none of the limit used', async () => {
    // docs/money.md: card spend is charges less refunds; a refund of an earlier window's charge
    // can leave it below 0 (the page said nothing but an error for such a card).
    serveCard({
      utilization: {
        preset: 'monthly',
        limitCents: 370_000,
        window: { fromDay: '2026-11-28', toDay: '2026-12-27', timeZone: 'UTC' },
        spentCents: -3_960,
      },
    });
    renderApp('/cards/card_1', { session: financeSession() });
    expect(await screen.findByText(/^Spent this month:/)).toHaveTextContent(
      'Spent this month: -$39.60 of $3,700.00 (more refunded than charged)',
    );
    const meter = screen.getByRole('meter', { name: 'Spent -$39.60 of $3,700.00' });
    expect(meter).toHaveAttribute('title', '0% of the limit');
  });

  it('writes statuses in sentence case, as the badges do: "Inactive", "Reversed" under its amount', async () => {
    serveCard(
      {
        recent: [
          indexRow({
            id: 'tx_r',
            description: 'Refunded taxi',
            amountCents: -3_000,
            status: 'reversed',
          }),
        ],
      },
      { status: 'inactive' },
    );
    renderApp('/cards/card_1', { session: financeSession() });
    const activity = (await screen.findByRole('heading', { name: 'Activity' })).closest(
      'div',
    ) as HTMLElement;
    const row = within(activity).getByRole('link', { name: 'Refunded taxi' }).closest('li');
    expect(row).toHaveTextContent(/Reversed$/);
    expect(within(row as HTMLElement).getByText('Reversed')).toHaveClass('recent-status');
    const status = screen.getByText('Status', { selector: 'dt' }).nextElementSibling;
    expect(status).toHaveTextContent(/^Inactive$/);
  });
});
