// Five everyday tasks a finance team does, in real Chromium against the product as `pnpm start`
// runs it (demo mode), at 1280×800 and 390×844, each counted from the landing page (the
// Overview) as a person does it: a click, a select change, a submitted field or a key press is
// one; scrolling is none. The bounds are the screens issue's (issue 48): software spend last
// quarter by card ≤ 4 (≤ 5 on a phone); who revealed cards this week ≤ 3 (≤ 4); every
// transaction at one merchant over $500 in the last 90 days ≤ 4 (≤ 5); every transaction at one
// merchant however the networks write it in the last 90 days ≤ 3 (≤ 4, issue 49); spend by
// person (the cards' owners) last month ≤ 3 (≤ 4, issue 49); a card found by its last four ≤ 2
// (≤ 3). What each task ends on is checked against the BFF's own answers, asked here
// with days worked out from the calendar, not by the screen's preset code.

import type { AuditPage } from '@card-console/shared/api/audit';
import type { Card, CardPage } from '@card-console/shared/api/cards';
import type { Overview } from '@card-console/shared/api/overview';
import type {
  CategoryCatalog,
  IndexMerchant,
  IndexPage,
  IndexTotalsAnswer,
} from '@card-console/shared/api/transaction-index';
import { dayRangeToBounds } from '@card-console/shared/dates';
import { formatCents } from '@card-console/shared/money';
import { netCardSpendCents } from '@card-console/shared/money-definition';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAnswer } from './support/api';
import { launchChromium, newPage, screenshot, seriousA11yViolations } from './support/browser';
import { type Running, startProduct } from './support/product';
import { DEMO_ADMIN_TOTP_SECRET, DEMO_PASSWORD, signIn } from './support/sign-in';
import { freshTotp } from './support/totp';

const ZONE = 'America/New_York';
let product: Running;
let browser: Browser;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

const api = <T>(page: Page, path: string, body?: object) =>
  apiAnswer<T>(page, product.url, path, body);

/** Today in the zone, and the day `days` before it, from the calendar (YYYY-MM-DD). */
function calendar(daysBefore = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d - daysBefore)).toISOString().slice(0, 10);
}

/** Last month's first and last days in the zone, from the calendar (YYYY-MM-DD). */
function lastMonth(): { from: string; to: string } {
  const [y, m] = calendar().split('-').map(Number) as [number, number];
  const day = (date: Date) => date.toISOString().slice(0, 10);
  return { from: day(new Date(Date.UTC(y, m - 2, 1))), to: day(new Date(Date.UTC(y, m - 1, 0))) };
}

/** This week's Monday in the zone. */
function monday(): string {
  const today = calendar();
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  return calendar((new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7);
}

const sizes = [
  [1280, 800],
  [390, 844],
] as const;

describe.each(sizes)('at %i×%i, everyday tasks from the landing page', (width, height) => {
  const phone = width < 640;
  let page: Page;
  let problems: string[];
  /** Interactions of the task under way. */
  let count = 0;

  beforeAll(async () => {
    ({ page, problems } = await newPage(browser, product.url, {
      timezoneId: ZONE,
      viewport: { width, height },
    }));
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill('admin@demo.test');
    await page.getByLabel('Second-factor code').waitFor();
    await signIn(page, 'admin@demo.test', DEMO_PASSWORD, () => freshTotp(DEMO_ADMIN_TOTP_SECRET));
    // The demo index synced, as a person returning to the product finds it.
    const deadline = Date.now() + 240_000;
    while ((await api<IndexPage>(page, '/api/index/transactions?limit=1')).freshness.syncing) {
      if (Date.now() > deadline) throw new Error('the first sync did not end within 4 minutes');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }, 300_000);

  afterAll(async () => {
    await page?.context().close();
  });

  async function expectAccessible(step: string) {
    await screenshot(page, `everyday-${step}-${width}`);
    expect(await seriousA11yViolations(page), step).toEqual([]);
    expect(problems, step).toEqual([]);
  }

  /** The landing page, as a person arrives: the Overview. */
  async function land() {
    await page.goto('/');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    count = 0;
  }

  /** One interaction. */
  async function act(step: () => Promise<unknown>) {
    await step();
    count++;
  }

  /** A screen from the main navigation: on a phone, behind Menu (one more interaction). */
  async function go(name: string) {
    const menu = page.getByRole('button', { name: 'Menu' });
    if (await menu.isVisible()) await act(() => menu.click());
    await act(() =>
      page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name, exact: true })
        .click(),
    );
    await page.getByRole('heading', { level: 1, name }).waitFor();
  }

  /** The folded filters on a phone, opened (one interaction); in view already on a wide window. */
  async function unfold() {
    const toggle = page.getByRole('button', { name: /^Filters/ });
    if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true') {
      await act(() => toggle.click());
    }
  }

  it(`software spend last quarter by card: ≤ ${phone ? 5 : 4}`, async () => {
    await land();
    await go('Transactions');
    const category = page.getByRole('combobox', { name: 'Category', exact: true });
    await category.fill('software');
    await page.getByRole('option', { name: /^software/ }).waitFor();
    // Typed and picked with Enter: one submitted field.
    await act(() => category.press('Enter'));
    await act(() => page.getByLabel('Period').selectOption('last-quarter'));
    await act(() => page.getByLabel('Totals by').selectOption('card'));
    expect(count).toBeLessThanOrEqual(phone ? 5 : 4);

    await page.waitForURL((url) => url.searchParams.get('by') === 'card');
    const url = new URL(page.url());
    expect(url.searchParams.get('period')).toBe('last-quarter');
    // The everyday theme "software": its codes, as the catalog names them, in a readable list.
    const catalog = await api<CategoryCatalog>(page, '/api/index/categories');
    const software = catalog.categories
      .filter((c) => c.themes?.includes('software'))
      .map((c) => c.code);
    expect(software.length).toBeGreaterThan(0);
    expect(new Set(url.searchParams.get('category')?.split(','))).toEqual(new Set(software));
    const table = page.getByRole('table', { name: /by card/i });
    await table.getByRole('row').nth(1).waitFor();
    await expectAccessible('software-by-card');
  });

  it(`who revealed cards this week: ≤ ${phone ? 4 : 3}`, async () => {
    // A reveal this week to find (the demo's trail starts empty): a card's details, asked for
    // with a reason and the second factor, as the Cards screen asks.
    const cards = await api<CardPage>(page, '/api/cards');
    const card = cards.items[0] as Card;
    await api(page, `/api/cards/${encodeURIComponent(card.id)}/reveal`, {
      reason: `Everyday task check ${width}`,
      totp: await freshTotp(DEMO_ADMIN_TOTP_SECRET),
    });

    await land();
    await go('Audit');
    await act(() => page.getByLabel('Period').selectOption('this-week'));
    await act(() => page.getByLabel('Action').selectOption('card.reveal'));
    expect(count).toBeLessThanOrEqual(phone ? 4 : 3);

    await page.waitForURL((url) => url.searchParams.get('action') === 'card.reveal');
    const bounds = dayRangeToBounds(monday(), calendar(), ZONE);
    const trail = await api<AuditPage>(
      page,
      `/api/audit?action=card.reveal&from=${bounds.from}&to=${bounds.to}`,
    );
    // This week's reveals are this run's: one page.
    expect(trail.nextCursor).toBeUndefined();
    expect(trail.items.length).toBeGreaterThan(0);
    const rows = page.locator('.audit-table tbody tr');
    await expect.poll(() => rows.count()).toBe(trail.items.length);
    await rows
      .filter({ hasText: `Everyday task check ${width}` })
      .first()
      .waitFor();
    await expectAccessible('reveals-this-week');
  });

  it(`every transaction at one merchant over $500 in the last 90 days: ≤ ${phone ? 5 : 4}`, async () => {
    await land();
    // The Overview's top merchants: a row opens that merchant's transactions.
    const merchants = page.getByRole('region', { name: 'Top merchants' });
    const first = merchants.getByRole('link').first();
    const merchant = (await first.getAttribute('aria-label')) ?? '';
    expect(merchant).not.toBe('');
    await act(() => first.click());
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    await act(() => page.getByLabel('Period').selectOption('last-90-days'));
    await unfold();
    const from = page.getByLabel('Amount from');
    await from.fill('500');
    await act(() => from.press('Enter'));
    expect(count).toBeLessThanOrEqual(phone ? 5 : 4);

    await page.waitForURL((url) => url.searchParams.get('min') === '500');
    const url = new URL(page.url());
    expect(url.searchParams.get('period')).toBe('last-90-days');
    // The merchant by its name: every way the card networks write it.
    const key = url.searchParams.get('merchantName') ?? '';
    expect(key).not.toBe('');
    // The same question to the BFF, the 90 days from the calendar (today the 90th).
    const bounds = dayRangeToBounds(calendar(89), calendar(), ZONE);
    const query = new URLSearchParams({
      from: String(bounds.from),
      to: String(bounds.to),
      minCents: '50000',
      limit: '200',
    });
    for (const status of url.searchParams.get('status')?.split(',') ?? []) {
      query.append('status', status);
    }
    query.append('merchantName', key);
    const want = await api<IndexPage>(page, `/api/index/transactions?${query}`);
    const rows = page.locator('.transactions-table tbody tr');
    await expect.poll(() => rows.count()).toBe(want.items.length);
    for (const t of want.items) expect(Math.abs(t.amountCents)).toBeGreaterThanOrEqual(50_000);
    // The filters unfolded on a phone wrap within the screen (they once widened it to 448).
    expect(
      await page.evaluate(
        () => document.documentElement.scrollWidth <= document.documentElement.clientWidth,
      ),
      `${width} scrolls sideways`,
    ).toBe(true);
    await expectAccessible('merchant-over-500');
  });

  it(`every transaction at one merchant, however the networks write it, in the last 90 days: ≤ ${phone ? 4 : 3}`, async () => {
    // The Overview's own question, to find a top merchant written several ways (issue 49).
    const asked: string[] = [];
    const note = (request: { url(): string }) => {
      if (new URL(request.url()).pathname === '/api/overview') asked.push(request.url());
    };
    page.on('request', note);
    await land();
    const merchants = page.getByRole('region', { name: 'Top merchants' });
    await merchants.getByRole('link').first().waitFor();
    page.off('request', note);
    const search = new URL(asked.at(-1) ?? '').search;
    const overview = await api<Overview>(page, `/api/overview${search}`);
    const several = overview.merchants.find((m) => m.ways > 1);
    expect(several, 'a top merchant written several ways').toBeDefined();
    const name = several?.key ?? '';
    await act(() =>
      merchants
        .getByRole('link', {
          name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
        })
        .click(),
    );
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    await act(() => page.getByLabel('Period').selectOption('last-90-days'));
    expect(count).toBeLessThanOrEqual(phone ? 4 : 3);
    console.info(`merchant however written, last 90 days, at ${width}: ${count} interactions`);

    await page.waitForURL((url) => url.searchParams.get('period') === 'last-90-days');
    const url = new URL(page.url());
    expect(url.searchParams.get('merchantName')).toBe(name);
    const bounds = dayRangeToBounds(calendar(89), calendar(), ZONE);
    const query = new URLSearchParams({
      from: String(bounds.from),
      to: String(bounds.to),
      merchantName: name,
    });
    for (const status of url.searchParams.get('status')?.split(',') ?? []) {
      query.append('status', status);
    }
    const totals = await api<IndexTotalsAnswer>(page, `/api/index/transactions/totals?${query}`);
    // Every way it is written (the index's texts of it, not only the Overview period's), summed:
    // the same set as each text's own.
    const texts = await api<IndexMerchant>(
      page,
      `/api/index/merchant?descriptor=${encodeURIComponent(several?.descriptors[0] ?? '')}`,
    );
    expect(texts.more).toBe(0);
    const byText = await Promise.all(
      texts.descriptors.map(async (text) => {
        const one = new URLSearchParams(query);
        one.delete('merchantName');
        one.append('merchant', text);
        return (await api<IndexTotalsAnswer>(page, `/api/index/transactions/totals?${one}`)).summary
          .count;
      }),
    );
    expect(totals.summary.count).toBe(byText.reduce((a, b) => a + b, 0));
    expect(byText.filter((n) => n > 0).length).toBeGreaterThan(1);
    await page
      .getByText(new RegExp(`^${totals.summary.count.toLocaleString('en-US')} transactions?$`))
      .first()
      .waitFor();
    await expectAccessible('merchant-however-written');
  });

  it(`spend by person last month: ≤ ${phone ? 4 : 3}`, async () => {
    // The demo's cards have their holders as owners (issue 49, demo-owners.ts).
    const month = lastMonth();
    const bounds = dayRangeToBounds(month.from, month.to, ZONE);

    await land();
    await go('Transactions');
    await act(() => page.getByLabel('Period').selectOption('last-month'));
    await act(() => page.getByLabel('Totals by').selectOption('owner'));
    expect(count).toBeLessThanOrEqual(phone ? 4 : 3);
    console.info(`spend by person last month, at ${width}: ${count} interactions`);

    await page.waitForURL((url) => url.searchParams.get('by') === 'owner');
    expect(new URL(page.url()).searchParams.get('period')).toBe('last-month');
    // The same question to the BFF, last month from the calendar: each person's line shows
    // their card spend to the cent.
    const want = await api<IndexTotalsAnswer>(
      page,
      `/api/index/transactions/totals?from=${bounds.from}&to=${bounds.to}&by=owner`,
    );
    const people = (want.breakdown?.groups ?? []).filter((g) => g.key !== undefined);
    expect(people.length, 'owners who spent last month').toBeGreaterThan(2);
    const table = page.getByRole('table', { name: 'Totals by owner' });
    for (const person of people.slice(0, 3)) {
      const row = table
        .getByRole('row')
        .filter({ has: page.getByRole('button', { name: person.key, exact: true }) });
      await row.waitFor();
      expect(await row.textContent()).toContain(formatCents(netCardSpendCents(person.buckets)));
    }
    await expectAccessible('spend-by-person');
  });

  it(`a card found by its last four: ≤ ${phone ? 3 : 2}`, async () => {
    // Every card, walked page by page, to pick one and know which share its last four.
    const all: Card[] = [];
    let cursor: string | undefined;
    do {
      const page_ = await api<CardPage>(
        page,
        `/api/cards${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      all.push(...page_.items);
      cursor = page_.nextCursor;
    } while (cursor);
    const wanted = all[Math.floor(all.length / 2)] as Card;
    const last4 = wanted.last4 ?? '';
    expect(last4).toMatch(/^\d{4}$/);
    const sharing = all.filter((c) => c.last4 === last4 || c.name.includes(last4));

    await land();
    await go('Cards');
    await act(() => page.getByLabel('Search cards').fill(last4));
    expect(count).toBeLessThanOrEqual(phone ? 3 : 2);

    const rows = page.locator('.cards-table tbody tr');
    await expect.poll(() => rows.count()).toBe(sharing.length);
    await rows.filter({ hasText: wanted.name }).first().waitFor();
    await expectAccessible('card-by-last-four');
  });
});
