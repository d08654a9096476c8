// Issue 31, "Errors and dead ends": a failed list does not replace the page. On Transactions,
// Cards, Sub accounts and the Overview, a 500 on the list (or the Overview's numbers) shows in
// the list's place in plain words with the request id and a Retry, the header and the filters
// the URL set kept with their values; Retry loads the list, the address unchanged. In a real
// Chromium against `pnpm start`, at a laptop's 1280×800 and a phone's 390×844.
import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type { IndexPage } from '@card-console/shared/api/transaction-index';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_HEADERS,
  launchChromium,
  newPage,
  screenshot,
  seriousA11yViolations,
} from './support/browser';
import { type Running, startProduct } from './support/product';
import { DEMO_ADMIN_TOTP_SECRET, DEMO_PASSWORD, signIn } from './support/sign-in';
import { freshTotp } from './support/totp';

const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

let product: Running;
let browser: Browser;
let page: Page;
let problems: string[] = [];
let subAccount: SubAccount;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium();
  ({ page, problems } = await newPage(browser, product.url));
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill('admin@demo.test');
  await page.getByLabel('Second-factor code').waitFor();
  await signIn(page, 'admin@demo.test', DEMO_PASSWORD, () => freshTotp(DEMO_ADMIN_TOTP_SECRET));
  const { items } = await page.evaluate(async () => {
    const response = await fetch('/api/sub-accounts', { headers: { 'X-CSRF': '1' } });
    return (await response.json()) as { items: SubAccount[] };
  });
  subAccount = items[0] as SubAccount;
  // Once the index has synced: a retried Transactions list then shows rows, not "syncing".
  const deadline = Date.now() + 90_000;
  while (await indexSyncing()) {
    if (Date.now() > deadline) throw new Error('the index did not sync within 90 s');
    await page.waitForTimeout(250);
  }
});

async function indexSyncing(): Promise<boolean> {
  const answer = await page.request.get('/api/index/transactions?limit=1', {
    headers: API_HEADERS,
  });
  return ((await answer.json()) as IndexPage).freshness.syncing;
}

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

const sideways = () =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** A filter's drop-down by its label (charts name their bars with words like "Period"). */
const choice = (name: string) => page.getByRole('combobox', { name, exact: true });

interface ListScreen {
  name: string;
  /** The screen's address, with the filters a link would carry. */
  path: () => string;
  /** The list's endpoint, made to answer 500. */
  endpoint: string;
  heading: string;
  /** Controls that must stay on screen, and the value each shows (undefined: only present). */
  kept: () => { control: Locator; value?: string }[];
  /** Something only a loaded list shows. */
  loaded: () => Locator;
}

const screens: ListScreen[] = [
  {
    name: 'transactions',
    path: () => `/transactions?subAccountId=${encodeURIComponent(subAccount.id)}&q=a`,
    // The list's rows only (the path exactly): the set's figures, asked of
    // /api/index/transactions/totals, answer as usual.
    endpoint: '/api/index/transactions',
    heading: 'Transactions',
    kept: () => [
      { control: choice('Sub account'), value: subAccount.id },
      { control: page.getByLabel('Search', { exact: true }), value: 'a' },
      { control: page.getByRole('button', { name: 'Export CSV' }) },
    ],
    loaded: () => page.locator('.list-area tbody tr:has(td.col-date)').first(),
  },
  {
    name: 'cards',
    path: () => '/cards?sort=name&direction=asc',
    endpoint: '/api/cards',
    heading: 'Cards',
    kept: () => [
      { control: choice('Sort by'), value: 'name' },
      { control: choice('Direction'), value: 'asc' },
      { control: choice('Sub account'), value: '' },
    ],
    loaded: () => page.locator('.cards-table tbody tr').first(),
  },
  {
    name: 'sub-accounts',
    path: () => '/sub-accounts',
    endpoint: '/api/sub-accounts',
    heading: 'Sub accounts',
    kept: () => [{ control: page.getByRole('button', { name: 'Create sub account' }) }],
    loaded: () => page.locator('.sub-accounts-table tbody tr').first(),
  },
  {
    name: 'overview',
    path: () => `/overview?period=90d&subAccountId=${encodeURIComponent(subAccount.id)}`,
    endpoint: '/api/overview',
    heading: 'Overview',
    kept: () => [
      { control: choice('Period'), value: '90d' },
      { control: choice('Sub account'), value: subAccount.id },
    ],
    loaded: () => page.locator('.overview-body'),
  },
];

describe('a 500 on a list shows in its place, the filters kept; Retry loads it', () => {
  for (const size of SIZES) {
    for (const screen of screens) {
      it(`${size.width}×${size.height}: ${screen.name}`, async () => {
        await page.setViewportSize(size);
        const requestId = `req-e2e-${screen.name}-${size.width}`;
        let failing = true;
        let failed = 0;
        const isList = (url: URL) => url.pathname === screen.endpoint;
        await page.route(isList, (route) => {
          if (!failing) return route.continue();
          failed++;
          return route.fulfill({
            status: 500,
            headers: { 'X-Request-Id': requestId },
            contentType: 'application/problem+json',
            body: JSON.stringify({
              type: '/problems/internal_error',
              title: 'Internal error',
              status: 500,
              code: 'internal_error',
              detail: 'Something went wrong on our side. Try again.',
              requestId,
            }),
          });
        });
        try {
          const path = screen.path();
          await page.goto(path);
          const alert = page
            .getByRole('alert')
            .filter({ hasText: 'Something went wrong on our side' });
          await alert.waitFor();
          // Asked once: a 500 is not retried by itself, nor asked again when the screen mounts.
          expect(failed).toBe(1);
          const text = (await alert.textContent()) ?? '';
          expect(text).toContain(requestId);
          expect(text.replace(requestId, '')).not.toMatch(/500|Internal Server Error/);
          // The screen stays: its heading and its filters with the link's values.
          const heading = page.getByRole('heading', { level: 1, name: screen.heading });
          expect(await heading.isVisible()).toBe(true);
          for (const { control, value } of screen.kept()) {
            expect(await control.isVisible()).toBe(true);
            if (value !== undefined) expect(await control.inputValue()).toBe(value);
          }
          expect(await screen.loaded().count()).toBe(0);
          expect(await sideways()).toBeLessThanOrEqual(0);
          await screenshot(page, `list-errors-${screen.name}-500-${size.width}`);
          expect(await seriousA11yViolations(page)).toEqual([]);

          failing = false;
          await alert.getByRole('button', { name: 'Retry' }).click();
          await screen.loaded().waitFor();
          expect(await alert.count()).toBe(0);
          expect(`${new URL(page.url()).pathname}${new URL(page.url()).search}`).toBe(
            new URL(path, product.url).pathname + new URL(path, product.url).search,
          );
          for (const { control, value } of screen.kept()) {
            if (value !== undefined) expect(await control.inputValue()).toBe(value);
          }
          expect(await sideways()).toBeLessThanOrEqual(0);
          await screenshot(page, `list-errors-${screen.name}-retried-${size.width}`);
        } finally {
          await page.unroute(isList);
        }
      });
    }
  }

  it('nothing was refused by the CSP and nothing threw', () => {
    expect(problems).toEqual([]);
  });
});
