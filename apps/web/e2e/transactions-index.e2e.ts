// The finance questions the transaction index answers, in real Chromium against the product
// as `pnpm start` runs it (demo mode), at 1280×800 and 390×844, each in at most four
// interactions on the Transactions screen. Every figure the screen shows is checked against
// the card service's own answer (the BFF's `/api/transactions`, walked page by page per sub
// account), never against the index itself.

import type { Card, CardPage } from '@card-console/shared/api/cards';
import type { SubAccount, SubAccountPage } from '@card-console/shared/api/sub-accounts';
import type {
  CategoryCatalog,
  IndexCard,
  IndexPage,
} from '@card-console/shared/api/transaction-index';
import type { Transaction, TransactionPage } from '@card-console/shared/api/transactions';
import { dayRangeToBounds, instantToIsoDay } from '@card-console/shared/dates';
import { formatCents } from '@card-console/shared/money';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Period, periodDays } from '../src/lib/periods';
import {
  API_HEADERS,
  launchChromium,
  newPage,
  screenshot,
  seriousA11yViolations,
} from './support/browser';
import { type Running, startProduct } from './support/product';
import { DEMO_PASSWORD, signIn } from './support/sign-in';

const ZONE = 'America/New_York';
let product: Running;
let browser: Browser;

beforeAll(async () => {
  // Five times the default demo: a day then holds about 10 declines, so "yesterday"
  // is never empty, whatever the hour the test runs.
  // The checks walk the card service's list page by page: past a person's rate limit.
  product = await startProduct({
    DEMO_TRANSACTIONS: '100000',
    API_RATE_LIMIT_PER_MINUTE: '100000',
  });
  browser = await launchChromium();
  // The first sync of 100,000 rows, waited for once here: on a loaded machine it took longer
  // than one size's own set-up allows (a clean-clone run), so each size starts from an index
  // that has synced, as a person returning to the product would.
  const { page } = await financePage(1280, 800);
  const deadline = Date.now() + 300_000;
  while ((await api<IndexPage>(page, '/api/index/transactions?limit=1')).freshness.syncing) {
    if (Date.now() > deadline) throw new Error('the first sync did not end within 5 minutes');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await page.context().close();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

/** A signed-in finance person's page at a window size. */
async function financePage(width: number, height: number) {
  const opened = await newPage(browser, product.url, {
    timezoneId: ZONE,
    viewport: { width, height },
  });
  await opened.page.goto('/sign-in');
  await signIn(opened.page, 'finance@demo.test', DEMO_PASSWORD);
  await opened.page.waitForURL((url) => !url.pathname.startsWith('/sign-in'));
  return opened;
}

async function api<T>(page: Page, path: string): Promise<T> {
  const response = await page.request.get(path, { headers: API_HEADERS });
  expect(response.status(), path).toBe(200);
  return (await response.json()) as T;
}

/**
 * Every transaction of the period, straight from the card service, every sub account: read
 * once for both window sizes (the demo's rows do not change while the file runs).
 */
const serviceRowsOf = new Map<Period, Promise<Transaction[]>>();
function serviceRows(page: Page, period: Period): Promise<Transaction[]> {
  const rows = serviceRowsOf.get(period) ?? readServiceRows(page, period);
  serviceRowsOf.set(period, rows);
  return rows;
}
async function readServiceRows(page: Page, period: Period): Promise<Transaction[]> {
  const days = periodDays(period, instantToIsoDay(Date.now(), ZONE));
  const bounds = dayRangeToBounds(days.from, days.to, ZONE);
  const subAccounts: SubAccount[] = [];
  let next: string | undefined;
  do {
    const list = await api<SubAccountPage>(
      page,
      `/api/sub-accounts${next ? `?cursor=${encodeURIComponent(next)}` : ''}`,
    );
    subAccounts.push(...list.items);
    next = list.nextCursor;
  } while (next);
  const rows: Transaction[] = [];
  for (const sub of subAccounts) {
    let cursor: string | undefined;
    do {
      const query = new URLSearchParams({
        subAccountId: sub.id,
        from: String(bounds.from),
        to: String(bounds.to),
        ...(cursor ? { cursor } : {}),
      });
      const page_ = await api<TransactionPage>(page, `/api/transactions?${query}`);
      rows.push(...page_.items);
      cursor = page_.nextCursor;
    } while (cursor);
  }
  return rows;
}

// docs/money.md's table by hand (not the product's definition).
const moves = (t: Transaction) => ['settled', 'pending', 'refund', 'dispute'].includes(t.status);
/** Card spend: card rows that moved or will (settled, pending, refund, dispute), net. */
const cardSpend = (rows: Transaction[]) =>
  rows.filter((t) => t.cardId && moves(t)).reduce((n, t) => n - t.amountCents, 0);
/** Spend, as totals-by ranks its groups: card spend and payments without a card. */
const spend = (rows: Transaction[]) =>
  rows
    .filter((t) => moves(t) && (t.cardId || t.amountCents < 0))
    .reduce((n, t) => n - t.amountCents, 0);
/** Posted: settled, refund and dispute rows, signed; what an accounting file nets to. */
const posted = (rows: Transaction[]) =>
  rows
    .filter((t) => ['settled', 'refund', 'dispute'].includes(t.status))
    .reduce((n, t) => n + t.amountCents, 0);

/** Opens Transactions and waits until the index has synced what it shows. */
async function openSynced(page: Page) {
  await page.goto('/transactions');
  await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
  await page.getByText(/^Updated /).waitFor({ timeout: 60_000 });
}

async function summaryFigures(page: Page) {
  const text = (await page.locator('.summary-figures').textContent()) ?? '';
  return text;
}

const sizes = [
  [1280, 800],
  [390, 844],
] as const;

describe.each(sizes)('at %i×%i, a finance person', (width, height) => {
  let page: Page;
  let problems: string[];
  beforeAll(async () => {
    ({ page, problems } = await financePage(width, height));
    await openSynced(page);
  }, 120_000);
  afterAll(async () => page?.context().close());

  /** On a phone the filters past the search, sub account, period and category fold under "Filters". */
  async function unfold() {
    const toggle = page.getByRole('button', { name: /^Filters/ });
    if (await toggle.isVisible()) {
      if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
      return 1;
    }
    return 0;
  }

  it('"software spend last quarter, by card": category, period, totals by card', async () => {
    // The category stays in view on a phone too: no fold to open. (Exactly "Category": the
    // notes' "Accounting category" is another filter.)
    await page.getByRole('combobox', { name: 'Category', exact: true }).fill('software');
    let interactions = 1;
    await page.getByRole('option', { name: /^software/ }).click();
    interactions++;
    await page.getByLabel('Period').selectOption('last-quarter');
    interactions++;
    await page.getByLabel('Totals by').selectOption('card');
    interactions++;
    expect(interactions).toBeLessThanOrEqual(4);

    const catalog = await api<CategoryCatalog>(page, '/api/index/categories');
    const software = new Set(
      catalog.categories.filter((c) => c.themes?.includes('software')).map((c) => c.code),
    );
    const want = (await serviceRows(page, 'last-quarter')).filter(
      (t) => t.merchant && software.has(t.merchant.categoryCode),
    );
    expect(want.length).toBeGreaterThan(0);
    await expect
      .poll(() => summaryFigures(page))
      .toContain(`${want.length.toLocaleString('en-US')} transaction`);
    // Card spend is the card charges that moved or will, less refunds: not the old "debits",
    // which held canceled, reversed, failed and returned rows.
    expect(await summaryFigures(page)).toContain(`Card spend ${formatCents(cardSpend(want))}`);
    expect(await summaryFigures(page)).toContain(`Posted ${formatCents(posted(want))}`);

    // Each card's line is its own spend, from the card service's rows.
    const table = page.getByRole('table', { name: 'Totals by card' });
    await table.waitFor();
    const byCard = new Map<string, Transaction[]>();
    for (const t of want) byCard.set(t.cardId ?? '', [...(byCard.get(t.cardId ?? '') ?? []), t]);
    const lines = await table.locator('tbody tr').all();
    // The 25 largest, then the rest as one line ("Other 36 cards"); the total is the summary's.
    expect(lines.length).toBe(Math.min(byCard.size, 25) + (byCard.size > 25 ? 1 : 0));
    if (byCard.size > 25) {
      expect(await lines.at(-1)?.textContent()).toContain(`Other ${byCard.size - 25} card`);
    }
    expect(await table.locator('tfoot tr').textContent()).toContain(formatCents(cardSpend(want)));
    const biggest = [...byCard.values()].sort((a, b) => spend(b) - spend(a))[0] ?? [];
    const firstLine = (await lines[0]?.textContent()) ?? '';
    expect(firstLine).toContain(formatCents(cardSpend(biggest)));
    expect(firstLine).toContain(biggest[0]?.card?.name ?? '');

    expect(new URL(page.url()).searchParams.get('period')).toBe('last-quarter');
    await screenshot(page, `transactions-software-by-card-${width}`);
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);

  it('"yesterday\'s declines company-wide, with reasons": period and status', async () => {
    await page.goto('/transactions');
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    let interactions = 0;
    await page.getByLabel('Period').selectOption('yesterday');
    interactions++;
    interactions += await unfold();
    await page.locator('.status-choices summary').click();
    interactions++;
    await page.getByRole('checkbox', { name: 'Declined' }).check();
    interactions++;
    expect(interactions).toBeLessThanOrEqual(width < 640 ? 4 : 3);

    const want = (await serviceRows(page, 'yesterday')).filter((t) => t.status === 'declined');
    expect(want.length, 'the demo should have declines yesterday').toBeGreaterThan(0);
    await expect
      .poll(() => summaryFigures(page))
      .toContain(`${want.length.toLocaleString('en-US')} transaction`);
    const rows = page.locator('.transactions-table tbody tr');
    await expect.poll(() => rows.count()).toBe(Math.min(want.length, 100));
    // Every row says why it was declined, as the card service says, under its status.
    const reasons = await rows.evaluateAll((trs) =>
      trs.map((tr) => {
        const reason = tr.querySelector('td.col-status .decline-reason');
        // Its words, without the "Decline reason:" that only assistive technology reads.
        const hidden = reason?.querySelector('.visually-hidden')?.textContent ?? '';
        return reason ? (reason.textContent ?? '').slice(hidden.length) : '—';
      }),
    );
    expect(want.length, "one page should hold the day's declines").toBeLessThanOrEqual(100);
    expect(reasons.sort()).toEqual(want.map((t) => t.declineReason ?? '—').sort());
    expect(reasons.some((r) => r !== '—')).toBe(true);
    // Over every sub account, so each row names its own.
    if (width >= 640) {
      await page.getByRole('columnheader', { name: 'Sub account' }).waitFor();
    }
    await screenshot(page, `transactions-declines-yesterday-${width}`);
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);

  it('over all sub accounts, an Overview bar, category and decline reason open lists whose totals are the amounts clicked', async () => {
    await page.goto('/overview');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByText(/^Reading transactions/).waitFor({ state: 'detached', timeout: 60_000 });
    expect(new URL(page.url()).searchParams.get('subAccountId')).toBeNull();
    const figures = () => summaryFigures(page);

    /** A chart link's amount ("…: $1,234.56 spent…") or count ("…: 12 declined"). */
    async function follow(link: ReturnType<Page['getByRole']>) {
      const name = (await link.getAttribute('aria-label')) ?? '';
      await link.click();
      await page.waitForURL((url) => url.pathname === '/transactions');
      return name;
    }

    // The busiest bar: its card spend is the list's card spend.
    const bar = page.locator('svg.spend-chart a.bar-link').first();
    await bar.waitFor();
    const barName = (await bar.getAttribute('aria-label')) ?? '';
    const barSpend = /: (\$[\d,]+\.\d\d) card spend/.exec(barName)?.[1];
    expect(barSpend, barName).toBeDefined();
    await bar.click();
    await page.waitForURL((url) => url.pathname === '/transactions');
    expect(new URL(page.url()).searchParams.get('subAccountId')).toBeNull();
    await expect.poll(figures).toContain(`Card spend ${barSpend}`);
    await screenshot(page, `transactions-from-overview-bar-${width}`);

    // The largest category group.
    await page.goBack();
    const category = page
      .getByRole('region', { name: 'Card spend by category' })
      .locator('ol a')
      .first();
    const categoryName = await follow(category);
    const categorySpend = /: (\$[\d,]+\.\d\d) card spend/.exec(categoryName)?.[1];
    expect(categorySpend, categoryName).toBeDefined();
    await expect.poll(figures).toContain(`Card spend ${categorySpend}`);
    expect(new URL(page.url()).searchParams.get('categoryGroup')).not.toBeNull();

    // The commonest decline reason: its declines are the list's rows.
    await page.goBack();
    const declines = page
      .getByRole('region', { name: /^Card declines/ })
      .locator('ol a')
      .first();
    const reasonName = await follow(declines);
    const declined = /: ([\d,]+) declined/.exec(reasonName)?.[1];
    expect(declined, reasonName).toBeDefined();
    await expect.poll(figures).toContain(`${declined} transaction`);
    expect(new URL(page.url()).searchParams.get('declineReason')).not.toBeNull();
    expect(problems).toEqual([]);
  }, 120_000);

  it("a card shows what it spent of its utilisation limit, as the card service's rows add up", async () => {
    // A card with a monthly limit that has spent in this window.
    const cards: Card[] = [];
    /** The list's page each card is on (the cards screen shows `?pages=` of them). */
    const pageOf = new Map<string, number>();
    let next: string | undefined;
    let pages = 0;
    do {
      const list = await api<CardPage>(
        page,
        `/api/cards${next ? `?cursor=${encodeURIComponent(next)}` : ''}`,
      );
      pages++;
      cards.push(...list.items);
      for (const c of list.items) pageOf.set(c.id, pages);
      next = list.nextCursor;
    } while (next);
    let chosen: { card: Card; money: IndexCard } | undefined;
    for (const card of cards.filter((c) => c.utilizationLimit?.preset === 'monthly')) {
      const money = await api<IndexCard>(page, `/api/index/cards/${encodeURIComponent(card.id)}`);
      if ((money.utilization?.spentCents ?? 0) > 0) {
        chosen = { card, money };
        break;
      }
    }
    if (!chosen) throw new Error('no card with a monthly limit has spent this month');
    const { card, money } = chosen;
    const window = money.utilization?.window;
    if (!window) throw new Error('a monthly limit has a window');

    // The card service's own rows of that card in those days, every sub account.
    const bounds = dayRangeToBounds(window.fromDay, window.toDay, window.timeZone);
    let spent = 0;
    for (const subAccountId of money.subAccountIds) {
      let cursor: string | undefined;
      do {
        const query = new URLSearchParams({
          subAccountId,
          cardId: card.id,
          from: String(bounds.from),
          to: String(bounds.to),
          ...(cursor ? { cursor } : {}),
        });
        const rows = await api<TransactionPage>(page, `/api/transactions?${query}`);
        // docs/money.md: card spend is the card's settled, pending and disputed charges less
        // its refunds (what a limit counts), by hand.
        for (const t of rows.items) {
          if (['pending', 'settled', 'refund', 'dispute'].includes(t.status)) {
            spent -= t.amountCents;
          }
        }
        cursor = rows.nextCursor;
      } while (cursor);
    }
    expect(money.utilization?.spentCents).toBe(spent);

    await page.goto(`/cards/${encodeURIComponent(card.id)}`);
    const line = page.getByText(/^Spent this month:/);
    await line.waitFor();
    expect(await line.textContent()).toBe(
      `Spent this month: ${formatCents(spent)} of ${formatCents(card.utilizationLimit?.limitCents ?? 0)}${spent > (card.utilizationLimit?.limitCents ?? 0) ? ' (over the limit)' : ''}`,
    );
    await page.getByRole('meter').waitFor();
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await screenshot(page, `card-spend-${width}`);
    expect(await seriousA11yViolations(page)).toEqual([]);

    // The cards list: the same spend as a bar in the card's row, and where it spends from.
    const limitCents = card.utilizationLimit?.limitCents ?? 0;
    await page.goto(`/cards?pages=${pageOf.get(card.id) ?? 1}`);
    const row = page.locator('tbody tr', {
      has: page.locator(`a[href^="/cards/${encodeURIComponent(card.id)}"]`),
    });
    await row
      .getByRole('meter', { name: `Spent ${formatCents(spent)} of ${formatCents(limitCents)}` })
      .waitFor();
    const names = await api<{ items: { id: string; name: string }[] }>(page, '/api/sub-accounts');
    for (const id of money.subAccountIds) {
      const name = names.items.find((s) => s.id === id)?.name ?? id;
      // The names arrive with the sub accounts' own answer, after the row: wait for them.
      await expect.poll(() => row.locator('td.col-spends-from').textContent()).toContain(name);
    }
    await screenshot(page, `cards-spend-${width}`);
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);
});
