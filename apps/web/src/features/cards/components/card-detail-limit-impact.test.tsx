import type { Card } from '@card-console/shared/api/cards';
import { screen, within } from '@testing-library/react';
import { delay, HttpResponse, type http } from 'msw';
import { describe, expect, it } from 'vitest';
import { adminSession, card, limitImpact } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';
import { inTimeZone } from '../../../test/time-zone';

// Far from UTC, so the link's days differ from the window's UTC days.
const ZONE = 'Pacific/Auckland';
inTimeZone(ZONE);

const none = { count: 0, sumCents: 0 };

// 2026-01-02 01:00 to 2026-04-01 09:00 in Auckland. The card's limits are $1.00 to $500.00.
const impact = limitImpact({
  from: Date.parse('2026-01-01T12:00:00.000Z'),
  to: Date.parse('2026-03-31T20:00:00.000Z'),
  examined: 240,
  wentThrough: { count: 200, sumCents: 2_345_600 },
  sizeDeclined: { count: 5, sumCents: 150_050 },
  current: {
    limits: { minimumCents: 100, maximumCents: 50_000 },
    wouldRefuse: { count: 4, sumCents: 300_000 },
    wouldAllow: { count: 1, sumCents: 20_000 },
  },
  proposed: {
    limits: { minimumCents: 500, maximumCents: 25_000 },
    wouldRefuse: { count: 12, sumCents: 345_678 },
    wouldAllow: { count: 3, sumCents: 90_050 },
  },
  refusedOnlyByProposed: { count: 9, sumCents: 65_678 },
  allowedOnlyByProposed: { count: 0, sumCents: 0 },
  effect: 'tighter',
  subAccountIds: ['sa_main', 'sa_other'],
});

/** The card with a $300 maximum raised to $400 (issue 43's case): 20 charges over $300 went through. */
const raised = limitImpact({
  ...impact,
  wentThrough: { count: 30, sumCents: 1_306_450 },
  sizeDeclined: { count: 4, sumCents: 157_000 },
  current: {
    limits: { minimumCents: 0, maximumCents: 30_000 },
    wouldRefuse: { count: 20, sumCents: 1_179_351 },
    wouldAllow: { count: 2, sumCents: 32_000 },
  },
  proposed: {
    limits: { minimumCents: 0, maximumCents: 40_000 },
    wouldRefuse: { count: 12, sumCents: 901_500 },
    wouldAllow: { count: 3, sumCents: 67_000 },
  },
  refusedOnlyByProposed: none,
  allowedOnlyByProposed: { count: 9, sumCents: 312_851 },
  effect: 'looser',
  subAccountIds: ['sa_main'],
});

/** The card of issue 43's case: a $300 maximum. */
const at300 = { transactionSizeLimit: { minimumCents: 0, maximumCents: 30_000 } };

/** The preview's verdict line, once it has answered. */
async function verdict(region: HTMLElement) {
  const status = within(region).getByRole('status');
  await within(status).findByRole('table');
  return status.querySelector('.limit-impact-verdict');
}

/** The table's cells, row by row, as text. */
function tableRows(region: HTMLElement) {
  const table = within(region).getByRole('table', {
    name: /at the current limits and at the proposed/,
  });
  return within(table)
    .getAllByRole('row')
    .map((row) => [...row.querySelectorAll('th, td')].map((c) => c.textContent));
}

function serveCard(limitImpact: Parameters<typeof http.get>[1], overrides: Partial<Card> = {}) {
  let current: Card = card(overrides);
  server.use(
    serve('cards.get', () => HttpResponse.json(current)),
    serve('cards.limitImpact', limitImpact),
    serve('cards.update', async ({ request }) => {
      const body = (await request.json()) as {
        transactionSizeLimit?: Card['transactionSizeLimit'];
      };
      current = {
        ...current,
        transactionSizeLimit: { ...current.transactionSizeLimit, ...body.transactionSizeLimit },
      };
      return HttpResponse.json(current);
    }),
  );
}

/** Opens the editor, types the limits given (dollars) and asks to review them. */
async function review(limits: { minimum?: string; maximum?: string; name?: string }) {
  const view = renderApp('/cards/card_1', { session: adminSession() });
  const { user } = view;
  await user.click(await screen.findByRole('button', { name: 'Edit name and limits' }));
  const fields = {
    minimum: 'Minimum per transaction (USD)',
    maximum: 'Maximum per transaction (USD)',
    name: 'Name',
  } as const;
  for (const [field, label] of Object.entries(fields)) {
    const value = limits[field as keyof typeof fields];
    if (value === undefined) continue;
    const input = screen.getByLabelText(label);
    await user.clear(input);
    await user.type(input, value);
  }
  await user.click(screen.getByRole('button', { name: 'Review changes' }));
  return { ...view, region: screen.getByRole('region', { name: 'Confirm changes' }) };
}

const impactRequests = () => requestsTo('/api/cards/card_1/limit-impact');

describe('card editor: what new limits would have done to the last 90 days', () => {
  it('$300 → $400: the current and the proposed limit side by side, and looser from them', async () => {
    serveCard(() => HttpResponse.json(raised), at300);
    const { region } = await review({ maximum: '400' });
    // The field says which way the limit moves; what that does to the charges is the preview's.
    expect(region).toHaveTextContent('Maximum per transaction: $300.00 → $400.00Looser limit');
    const status = within(region).getByRole('status');
    expect(await verdict(region)).toHaveTextContent(
      'Looser than the current limits. 9 of this card’s charges (total $3,128.51) are outside ' +
        'the current limits and within the proposed ones.',
    );
    expect(tableRows(region)).toEqual([
      [
        'Of this card’s charges',
        'Current limits $0.00 to $300.00',
        'Proposed limits $0.00 to $400.00',
      ],
      ['Went through (30 charges): these limits would refuse', '20 · $11,793.51', '12 · $9,015.00'],
      [
        'Declined for the size limit (4 charges): these limits would allow',
        '2 · $320.00',
        '3 · $670.00',
      ],
    ]);
    // What "went through" holds is said, disputed charges with it.
    expect(status).toHaveTextContent(
      'Went through: settled, pending and disputed card charges. Declined for the size limit: ' +
        'no money moved; counted apart.',
    );
    expect(status).not.toHaveTextContent(/would let through|that were refused/);
  });

  it('at the card’s current limits: the same, and declines within them never read as a change', async () => {
    serveCard(() =>
      HttpResponse.json({
        ...raised,
        proposed: raised.current,
        allowedOnlyByProposed: none,
        effect: 'same',
      }),
    );
    const { region } = await review({ maximum: '300' });
    const status = within(region).getByRole('status');
    expect(await verdict(region)).toHaveTextContent(/^The same as the current limits\.$/);
    expect(status).not.toHaveTextContent(/Looser|Tighter|would be allowed|would be refused/);
    expect(tableRows(region)[2]).toEqual([
      'Declined for the size limit (4 charges): these limits would allow',
      '2 · $320.00',
      '2 · $320.00',
    ]);
  });

  it.each([
    [
      'tighter',
      {},
      'Tighter than the current limits. 9 of this card’s charges (total $656.78) are within the ' +
        'current limits and outside the proposed ones.',
    ],
    [
      'mixed',
      { allowedOnlyByProposed: { count: 1, sumCents: 1_000 }, effect: 'mixed' },
      'Tighter for some charges, looser for others. 9 of this card’s charges (total $656.78) ' +
        'are within the current limits and outside the proposed ones; 1 (total $10.00) is ' +
        'outside the current limits and within the proposed ones.',
    ],
    [
      'the same with other limits',
      { refusedOnlyByProposed: none, effect: 'same' },
      'No different from the current limits on these 90 days: none of this card’s charges falls between the two.',
    ],
  ] as const)('%s says so from the comparison', async (_, overrides, words) => {
    serveCard(() => HttpResponse.json({ ...impact, ...overrides }));
    const { region } = await review({ minimum: '5', maximum: '250' });
    expect(await verdict(region)).toHaveTextContent(words);
  });

  it('links the proposed limits’ refusals to those days on Transactions', async () => {
    serveCard(() => HttpResponse.json(impact));
    const { region } = await review({ minimum: '5', maximum: '250' });
    await within(region).findByRole('table');
    const [request] = impactRequests();
    const query = new URL(request?.url ?? '').searchParams;
    expect(Object.fromEntries(query)).toEqual({ minimumCents: '500', maximumCents: '25000' });
    expect(impactRequests()).toHaveLength(1);

    const link = within(region).getByRole('link', { name: /transactions in those 90 days/ });
    expect(link).toHaveAttribute('target', '_blank');
    const href = new URL(link.getAttribute('href') ?? '', 'http://app.test');
    expect(href.pathname).toBe('/transactions');
    expect(Object.fromEntries(href.searchParams)).toEqual({
      subAccountId: 'sa_main',
      cardId: 'card_1',
      from: '2026-01-02',
      to: '2026-04-01',
    });

    // The refused ones: above the new maximum and below the new minimum, two ranges the list's
    // one amount filter cannot join, so a link each; on every sub account the rows were in.
    const refused = within(region).getByRole('list', {
      name: /Open the 12 charges the proposed limits would have refused/,
    });
    const search = (name: string) => {
      const a = within(refused).getByRole('link', { name });
      expect(a).toHaveAttribute('target', '_blank');
      return Object.fromEntries(
        new URL(a.getAttribute('href') ?? '', 'http://app.test').searchParams,
      );
    };
    const days = { cardId: 'card_1', from: '2026-01-02', to: '2026-04-01' };
    const paid = { status: 'pending,settled,dispute', sort: 'amount' };
    expect(search('Those above $250.00')).toEqual({ ...days, ...paid, min: '250.01' });
    expect(search('Those below $5.00')).toEqual({ ...days, ...paid, max: '4.99' });
  });

  it('with no minimum, one link opens exactly the amounts above the new maximum', async () => {
    serveCard(() =>
      HttpResponse.json({
        ...impact,
        proposed: {
          limits: { minimumCents: 0, maximumCents: 40_000 },
          wouldRefuse: { count: 40, sumCents: 1_234_500 },
          wouldAllow: none,
        },
        subAccountIds: ['sa_main'],
      }),
    );
    const { region } = await review({ maximum: '400' });
    const link = await within(region).findByRole('link', {
      name: 'Open the 40 charges the proposed limits would have refused (new tab)',
    });
    const href = new URL(link.getAttribute('href') ?? '', 'http://app.test');
    expect(href.pathname).toBe('/transactions');
    expect(Object.fromEntries(href.searchParams)).toEqual({
      subAccountId: 'sa_main',
      cardId: 'card_1',
      from: '2026-01-02',
      to: '2026-04-01',
      status: 'pending,settled,dispute',
      min: '400.01',
      sort: 'amount',
    });
  });

  it("a limit left as it was is sent as the card's current one", async () => {
    serveCard(() => HttpResponse.json(impact));
    await review({ maximum: '750' });
    await screen.findByRole('table');
    const query = new URL(impactRequests()[0]?.url ?? '').searchParams;
    expect(Object.fromEntries(query)).toEqual({ minimumCents: '100', maximumCents: '75000' });
  });

  it('says "is" for one charge, and no link when no sub account holds the rows', async () => {
    serveCard(() =>
      HttpResponse.json({
        ...impact,
        refusedOnlyByProposed: { count: 1, sumCents: 60_000 },
        subAccountIds: [],
      }),
    );
    const { region } = await review({ maximum: '400' });
    expect(await verdict(region)).toHaveTextContent(
      'Tighter than the current limits. 1 of this card’s charges (total $600.00) is within the ' +
        'current limits and outside the proposed ones.',
    );
    expect(within(region).queryByRole('link')).not.toBeInTheDocument();
  });

  it('says so when the card had no transactions in the window', async () => {
    serveCard(() =>
      HttpResponse.json({
        ...impact,
        examined: 0,
      }),
    );
    const { region } = await review({ maximum: '400' });
    expect(
      await within(region).findByText(
        'This card has no transactions in the last 90 days to check these limits against.',
      ),
    ).toBeInTheDocument();
    expect(within(region).queryByRole('link')).not.toBeInTheDocument();
  });

  it('while checking, a polite status says so and focus stays on the heading', async () => {
    let answer: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    serveCard(async () => {
      await answered;
      return HttpResponse.json(impact);
    });
    const { region } = await review({ maximum: '250' });

    const status = within(region).getByRole('status');
    expect(status).toHaveAttribute('aria-live', 'polite');
    expect(status).toHaveTextContent('Checking the last 90 days…');
    const heading = within(region).getByRole('heading', { name: 'Confirm changes' });
    expect(heading).toHaveFocus();
    expect(within(region).getByRole('button', { name: 'Confirm changes' })).toBeEnabled();

    answer();
    await within(status).findByText(/Tighter than the current limits/);
    expect(status).not.toHaveTextContent('Checking');
    expect(heading).toHaveFocus();
  });

  it('a failed check says so in one line and the change can still be confirmed', async () => {
    serveCard(async () => {
      await delay(10);
      return apiError(502, 'upstream_error', 'The card service did not answer.');
    });
    const { region, user } = await review({ maximum: '250' });

    const status = within(region).getByRole('status');
    expect(
      await within(status).findByText(
        'Could not check these limits against the last 90 days: The card service did not answer.',
      ),
    ).toBeInTheDocument();
    expect(within(region).queryByRole('link')).not.toBeInTheDocument();
    await user.click(within(region).getByRole('button', { name: 'Confirm changes' }));
    expect(await screen.findByText('Card updated.')).toBeInTheDocument();
    expect(requestsTo('/api/cards/card_1', 'PATCH')).toHaveLength(1);
  });

  it('a change of name only asks nothing and shows no preview', async () => {
    serveCard(() => HttpResponse.json(impact));
    const { region } = await review({ name: 'Team travel' });
    expect(region).toHaveTextContent('Name: Travel card → Team travel');
    expect(within(region).queryByRole('status')).not.toBeInTheDocument();
    expect(impactRequests()).toHaveLength(0);
  });
});
