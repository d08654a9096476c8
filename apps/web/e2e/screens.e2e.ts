// Every screen as people see it, at a laptop's 1280×800 and a phone's 390×844, in a real
// Chromium against `pnpm start`: nothing scrolls sideways, a 100-character name widens
// nothing, the lists are dense enough to work with, transactions name the card that paid,
// focus follows the work, and a 429's Retry-After is honoured to the second.
import type { Card } from '@card-console/shared/api/cards';
import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type { Transaction } from '@card-console/shared/api/transactions';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newPage, screenshot, seriousA11yViolations } from './support/browser';
import { cutValues } from './support/cut-values';
import { type Running, startProduct } from './support/product';
import { DEMO_ADMIN_TOTP_SECRET, DEMO_PASSWORD, signIn } from './support/sign-in';
import { freshTotp } from './support/totp';

const ZONE = 'America/New_York';
/** A name people do type: one word, no spaces to break at, 100 characters (the most allowed). */
const LONG = 'Procurement'.padEnd(100, 'X');
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

let product: Running;
let browser: Browser;
let page: Page;
let problems: string[] = [];
/**
 * What the app itself logged as an error. The browser's own "Failed to load resource" line for
 * an expected 401, 403 or 404 is not the app's and cannot be silenced by it.
 */
const appErrors: string[] = [];
const watchConsole = (p: Page, into: string[]) =>
  p.on('console', (m) => {
    if (m.type() === 'error' && !/^Failed to load resource/.test(m.text())) into.push(m.text());
  });

beforeAll(async () => {
  // The demo at its own size: its totals at the width people see, for the cut-value checks.
  // One admin tours every screen at both sizes, at a machine's speed: more calls in a minute
  // than a person's limit (300), so a fast run met 429 on a plain list. The limit itself is
  // tested where it is the subject (rate-limit tests); a 429 notice here is stubbed.
  product = await startProduct({ API_RATE_LIMIT_PER_MINUTE: '100000' }, { fullDemo: true });
  browser = await launchChromium();
  ({ page, problems } = await newPage(browser, product.url, { timezoneId: ZONE }));
  watchConsole(page, appErrors);
});

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

interface Answer<T> {
  status: number;
  body: T;
}

/** The BFF's API as the signed-in page calls it (its cookie, the CSRF header). */
function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<Answer<T>> {
  return page.evaluate(
    async ([p, method, body]) => {
      const response = await fetch(p, {
        method,
        headers: { 'X-CSRF': '1', 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    [path, init.method ?? 'GET', init.body] as const,
  ) as Promise<Answer<T>>;
}

async function allCards(): Promise<Card[]> {
  const cards: Card[] = [];
  let cursor: string | undefined;
  do {
    const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
    const { body } = await api<{ items: Card[]; nextCursor?: string }>(`/api/cards${query}`);
    cards.push(...body.items);
    cursor = body.nextCursor;
  } while (cursor);
  return cards;
}

/**
 * The long name in a list's table. Not the first match on the page: the filters' sub-account
 * picker has it too, as a hidden <option>, and is often drawn before the list has loaded.
 */
const inTable = (table: string) => page.locator(`${table} tbody`).getByText(LONG).first();

const sideways = () =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Rows of `selector` wholly inside the window, as a person sees them without scrolling. */
const rowsInView = (selector: string) =>
  page.evaluate(
    (s) =>
      [...document.querySelectorAll(s)].filter((row) => {
        const box = row.getBoundingClientRect();
        return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight;
      }).length,
    selector,
  );

/** How many lines each matching element's text takes (1: not wrapped). */
const linesOf = (selector: string) =>
  page.evaluate((s) => {
    return [...document.querySelectorAll(s)].map((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    });
  }, selector);

let longSubAccount: SubAccount;
let firstSubAccount: SubAccount;
let longCard: Card;
let busyCard: Card;
let cards: Card[];
let transaction: Transaction;

describe('every screen at 1280×800 and 390×844', () => {
  it('an admin signs in; a sub account and a card get 100-character names; changes fill the audit trail', async () => {
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill('admin@demo.test');
    await page.getByLabel('Second-factor code').waitFor();
    await signIn(page, 'admin@demo.test', DEMO_PASSWORD, () => freshTotp(DEMO_ADMIN_TOTP_SECRET));

    const created = await api<SubAccount>('/api/sub-accounts', {
      method: 'POST',
      body: { name: LONG },
    });
    expect(created.status).toBe(201);
    // The same name in other letters is taken: two entries could not be told apart.
    const again = await api<{ code: string; detail: string }>('/api/sub-accounts', {
      method: 'POST',
      body: { name: ` ${LONG.toLowerCase()} ` },
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('sub_account_name_taken');
    const { body: subAccounts } = await api<{ items: SubAccount[] }>('/api/sub-accounts');
    longSubAccount = subAccounts.items.find((s) => s.name === LONG) as SubAccount;
    firstSubAccount = subAccounts.items[0] as SubAccount;
    expect(longSubAccount).toBeDefined();

    cards = await allCards();
    const first = await api<{ items: Transaction[] }>(
      `/api/transactions?subAccountId=${firstSubAccount.id}`,
    );
    // The card that paid the newest card transaction among the cards' first page gets the long
    // name: it shows on page one of both lists.
    const { body: firstCards } = await api<{ items: Card[] }>('/api/cards');
    const onFirstPage = new Set(firstCards.items.map((c) => c.id));
    const paid = first.body.items.find((t) => t.cardId && onFirstPage.has(t.cardId)) as Transaction;
    transaction = first.body.items.find((t) => t.cardId && t.originalCurrency) ?? paid;
    longCard = cards.find((c) => c.id === paid.cardId) as Card;
    const renamed = await api<Card>(`/api/cards/${longCard.id}`, {
      method: 'PATCH',
      body: { name: LONG, expected: { name: longCard.name } },
    });
    expect(renamed.status).toBe(200);
    longCard = renamed.body;
    cards = cards.map((c) => (c.id === longCard.id ? longCard : c));

    // A dozen real changes, so the audit screen has more records than a window holds.
    busyCard = cards.find((c) => c.id !== longCard.id) as Card;
    let name = busyCard.name;
    for (let i = 0; i < 12; i++) {
      const next = i % 2 === 0 ? `${busyCard.name} (spare)` : busyCard.name;
      const change = await api<Card>(`/api/cards/${busyCard.id}`, {
        method: 'PATCH',
        body: { name: next, expected: { name } },
      });
      expect(change.status).toBe(200);
      name = next;
    }
  });

  for (const size of SIZES) {
    const tag = `${size.width}`;
    it(`${size.width}×${size.height}: no screen scrolls sideways or is widened by a long name; axe finds nothing serious`, async () => {
      await page.setViewportSize(size);
      const screens: [string, string, () => Promise<unknown>][] = [
        ['sub-accounts', '/sub-accounts', () => inTable('.sub-accounts-table').waitFor()],
        ['cards', '/cards', () => inTable('.cards-table').waitFor()],
        [
          'card-detail',
          `/cards/${longCard.id}`,
          () => page.getByRole('heading', { name: LONG }).waitFor(),
        ],
        [
          'transactions',
          `/transactions?subAccountId=${firstSubAccount.id}`,
          () => page.locator('tbody tr td.col-date').first().waitFor(),
        ],
        [
          'totals-by-card',
          `/transactions?subAccountId=${firstSubAccount.id}&by=card`,
          () => page.locator('.breakdown-table tfoot').waitFor(),
        ],
        [
          'transactions-long-sub-account',
          `/transactions?subAccountId=${longSubAccount.id}`,
          () => page.getByText('No transactions match these filters.', { exact: true }).waitFor(),
        ],
        [
          'transaction-detail',
          `/transactions/${transaction.id}?subAccountId=${firstSubAccount.id}`,
          () => page.getByRole('heading', { name: transaction.description }).waitFor(),
        ],
        ['audit', '/audit', () => page.locator('tbody tr').nth(11).waitFor()],
        ['security', '/security', () => page.getByRole('heading', { name: 'Passkeys' }).waitFor()],
        [
          'chart-of-accounts',
          '/accounting-categories',
          () => page.getByRole('heading', { name: 'Add category' }).waitFor(),
        ],
        ['alerts', '/alerts', () => page.getByRole('heading', { name: 'Team rules' }).waitFor()],
        [
          'receipt-inbox',
          '/receipts',
          () => page.getByRole('heading', { name: 'Receipt inbox', level: 1 }).waitFor(),
        ],
        [
          'people',
          '/people',
          () => page.getByRole('table', { name: 'People who may sign in' }).waitFor(),
        ],
        [
          'overview',
          `/overview?subAccountId=${firstSubAccount.id}`,
          // The BFF reads a period it has not seen and answers with progress until it is done.
          async () => {
            await page.getByRole('heading', { name: 'Top cards' }).waitFor();
            await page
              .getByText(/^Reading transactions/)
              .waitFor({ state: 'detached', timeout: 60_000 });
            await page
              .getByRole('link', { name: /card spend/ })
              .first()
              .waitFor();
          },
        ],
      ];
      for (const [name, path, ready] of screens) {
        await page.goto(path);
        await ready().catch((error: Error) => {
          throw new Error(`${name} at ${tag} was not ready: ${error.message}`);
        });
        // Photographed first: a screen that fails a check below is there to look at.
        await screenshot(page, `screens-${name}-${tag}`);
        expect(await sideways(), `${name} at ${tag}`).toBeLessThanOrEqual(0);
        // No value that tells one row from another is cut, with "…" or by its box (issue 48).
        expect(await cutValues(page), `${name} at ${tag}: values cut`).toEqual([]);
        expect(await seriousA11yViolations(page), `${name} at ${tag}`).toEqual([]);
        // A phone's header is one compact bar: under 10% of the window (issue 31).
        if (size.width === 390) {
          const header = await page.locator('header.topbar').boundingBox();
          expect(header?.height, `${name} header at ${tag}`).toBeLessThan(size.height * 0.1);
        }
        // The system's dark setting: the same screen, readable (axe's colour rules).
        await page.emulateMedia({ colorScheme: 'dark' });
        await screenshot(page, `screens-${name}-${tag}-dark`);
        expect(
          await seriousA11yViolations(page, { colours: 'only' }),
          `${name} at ${tag}, dark`,
        ).toEqual([]);
        await page.emulateMedia({ colorScheme: 'light' });
        expect(problems, name).toEqual([]);
      }
      // Fourteen screens, each drawn, photographed and checked by axe in both themes: on a loaded
      // two-core machine that passed the project's 120 s hang guard (a clean-clone run).
    }, 300_000);
  }

  for (const size of SIZES) {
    it(`${size.width}×${size.height}: a long sub-account or card name leaves every other value in view; the filter keeps its width`, async () => {
      await page.setViewportSize(size);
      const rightEdges = (selector: string) =>
        page.evaluate(
          (s) =>
            [...document.querySelectorAll(s)]
              .map((cell) => cell.getBoundingClientRect())
              .filter((box) => box.width > 0)
              .map((box) => box.right),
          selector,
        );
      await page.goto('/sub-accounts');
      await inTable('.sub-accounts-table').waitFor();
      const cells = await rightEdges(
        '.sub-accounts-table tbody tr > *, .sub-accounts-table tfoot tr > *',
      );
      expect(cells.length).toBeGreaterThan(10);
      for (const right of cells) expect(right).toBeLessThanOrEqual(size.width);
      expect(await page.getByRole('link', { name: `Transactions of ${LONG}` }).isVisible()).toBe(
        true,
      );

      await page.goto('/cards');
      await inTable('.cards-table').waitFor();
      const cardCells = await rightEdges('.cards-table tbody tr > *');
      expect(cardCells.length).toBeGreaterThan(10);
      for (const right of cardCells) expect(right).toBeLessThanOrEqual(size.width);

      await page.goto(`/transactions?subAccountId=${longSubAccount.id}`);
      const select = page.getByLabel('Sub account');
      await select.waitFor();
      expect((await select.boundingBox())?.width).toBeLessThanOrEqual(320);
    });
  }

  it('1280×800: at least 15 transactions and 12 audit records in view, no date wrapped', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`/transactions?subAccountId=${firstSubAccount.id}`);
    await page.locator('tbody tr td.col-date').nth(20).waitFor();
    // The screen as it settles: the index synced and the set's figures counted (while it syncs,
    // its progress sentence and then the figures arrive above the rows, on a loaded machine late).
    await page.getByText(/^Updated /).waitFor({ timeout: 120_000 });
    await page.getByText('What each total includes').waitFor();
    expect(await rowsInView('tbody tr:has(td.col-date)')).toBeGreaterThanOrEqual(15);
    const dateLines = await linesOf('tbody td.col-date');
    expect(dateLines.length).toBeGreaterThanOrEqual(15);
    expect(dateLines.every((n) => n === 1)).toBe(true);

    await page.goto('/audit');
    await page.locator('tbody tr').nth(11).waitFor();
    expect(await rowsInView('tbody tr:has(td)')).toBeGreaterThanOrEqual(12);
    // The time is the button that opens the record: its text, not the button's box and text.
    const auditDates = await linesOf('tbody tr td:first-child > button');
    expect(auditDates.length).toBeGreaterThanOrEqual(12);
    expect(auditDates.every((n) => n === 1)).toBe(true);
  });

  for (const size of SIZES) {
    it(`${size.width}×${size.height}: every transaction row with a card names it, with its last 4`, async () => {
      await page.setViewportSize(size);
      const { body } = await api<{ items: Transaction[] }>(
        `/api/transactions?subAccountId=${firstSubAccount.id}`,
      );
      await page.goto(`/transactions?subAccountId=${firstSubAccount.id}`);
      await page.locator('tbody tr td.col-date').first().waitFor();
      const byId = new Map(cards.map((c) => [c.id, c]));
      const rows = page.locator('tbody tr:has(td.col-date)');
      const shown = Math.min(await rows.count(), 20);
      let withCard = 0;
      for (let i = 0; i < shown; i++) {
        const t = body.items[i] as Transaction;
        const cell = rows.nth(i).locator('td.col-card');
        if (!t.cardId) continue;
        withCard++;
        const card = byId.get(t.cardId) as Card;
        const text = (await cell.textContent()) ?? '';
        expect(text, t.id).toContain(card.name);
        expect(text, t.id).toContain(card.last4);
        expect(text, t.id).not.toContain('View card');
      }
      expect(withCard).toBeGreaterThan(5);
    });
  }

  it('focus lands on the new content after reveal, edit and review; Escape cancels the editor', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/cards/${busyCard.id}`);
    const edit = page.getByRole('button', { name: 'Edit name and limits' });
    await edit.click();
    const focusedLabel = () =>
      page.evaluate(() => {
        const active = document.activeElement as HTMLElement | null;
        if (!active) return '';
        const labelled = active.getAttribute('aria-labelledby');
        const byId = labelled ? document.getElementById(labelled)?.textContent : undefined;
        return (
          (active as HTMLInputElement).labels?.[0]?.textContent ??
          active.getAttribute('aria-label') ??
          byId ??
          active.textContent ??
          ''
        ).trim();
      });
    await expect.poll(focusedLabel).toMatch(/^Name/);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Review changes' }).waitFor({ state: 'detached' });
    await expect.poll(focusedLabel).toBe('Edit name and limits');

    await edit.click();
    const max = page.getByLabel('Maximum per transaction (USD)');
    const maximum = Number(await max.inputValue()) || 100;
    await max.fill(String(maximum + 1));
    await page.getByRole('button', { name: 'Review changes' }).click();
    await expect.poll(focusedLabel).toBe('Confirm changes');
    const scrolled = await page.evaluate(() => window.scrollY);
    const headingTop = await page
      .getByRole('heading', { name: 'Confirm changes' })
      .evaluate((h) => h.getBoundingClientRect().top);
    // On the new content, in view: not the top of the page.
    expect(headingTop).toBeGreaterThanOrEqual(0);
    expect(headingTop).toBeLessThan(844);
    expect(scrolled + headingTop).toBeGreaterThan(0);
    // The review says what the new limits would have done to the card's last 90 days, computed
    // by the BFF from the card's real transactions; focus stays on the heading meanwhile.
    await page
      .getByRole('status')
      .filter({ hasText: /the current limits|no transactions in the last 90 days/ })
      .waitFor();
    expect(await focusedLabel()).toBe('Confirm changes');
    await screenshot(page, 'screens-limit-review-390');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await expect.poll(focusedLabel).toBe('Edit name and limits');

    await page.getByRole('button', { name: 'Reveal card details' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reveal card details' });
    await dialog.getByLabel('Reason').fill('Checking the number with the holder');
    const code = dialog.getByLabel('Second-factor code');
    await dialog.getByRole('button', { name: 'Reveal' }).click();
    if (await code.isVisible().catch(() => false)) {
      // Six digits reveal by themselves (issue 31): no second press.
      await code.fill(await freshTotp(DEMO_ADMIN_TOTP_SECRET));
    }
    await page.getByText(/Hidden again in \d+ s/).waitFor();
    await expect.poll(focusedLabel).toBe('Card number, expiry and security code');
    await page.getByRole('button', { name: 'Hide now' }).click();
    await expect.poll(focusedLabel).toBe('Reveal card details');
  });

  it("counts a real 429's Retry-After: 5 down truthfully and retries once, after 5 s", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    // Times are the browser's own (performance.now() around its fetch of the list): the retry's
    // wait is from the 429 reaching the page to the page asking again. Times taken in this
    // process would each carry a different relay delay from the browser under load.
    let answered = 0;
    await page.route(
      (url) => url.pathname === '/api/index/transactions',
      async (route) => {
        answered += 1;
        if (answered > 1) return route.continue();
        await route.fulfill({
          status: 429,
          headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '5' },
          body: JSON.stringify({
            type: '/problems/rate_limited',
            title: 'Too many requests',
            status: 429,
            code: 'rate_limited',
            detail: 'Too many requests.',
            requestId: 'e2e-rate-limited',
            retryAfterSeconds: 5,
          }),
        });
      },
    );
    // A filter not asked for before, so the list is not in the page's cache; reached inside the
    // app already drawn, as a click in it goes (popstate: the router's own history). A full
    // load's first read leaves before React has loaded, and on a loaded machine (another
    // file's product starting) the page drew its first screen only after the 5 s had passed.
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.evaluate(() => {
      const seen: { asked: number; status?: number; answered?: number }[] = [];
      (window as unknown as { listAsks: typeof seen }).listAsks = seen;
      const own = window.fetch.bind(window);
      window.fetch = async (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input), location.href);
        if (url.pathname !== '/api/index/transactions') return own(input, init);
        const ask: (typeof seen)[number] = { asked: performance.now() };
        seen.push(ask);
        const response = await own(input, init);
        ask.status = response.status;
        ask.answered = performance.now();
        return response;
      };
    });
    await page.evaluate((to) => {
      window.history.pushState(null, '', to);
      window.dispatchEvent(new PopStateEvent('popstate'));
    }, `/transactions?subAccountId=${firstSubAccount.id}&status=%5B%22declined%22%5D`);
    const notice = page.getByRole('status').filter({ hasText: 'Too many requests' });
    const seen = new Set<string>();
    // On a failure, what the page said instead (another notice, another address).
    await notice.waitFor().catch(async (error: Error) => {
      const said = await page.getByRole('status').allTextContents();
      throw new Error(
        `${error.message}\nasked: ${answered}, at ${page.url()}, notices: ${JSON.stringify(said)}`,
      );
    });
    while (await notice.isVisible().catch(() => false)) {
      const text = (await notice.textContent().catch(() => null)) ?? '';
      if (text) seen.add(text);
      await page.waitForTimeout(100);
    }
    await page.locator('tbody tr td.col-date').first().waitFor();
    await page.unroute((url) => url.pathname === '/api/index/transactions');

    const asks = await page.evaluate(
      () =>
        (window as unknown as { listAsks: { asked: number; status?: number; answered?: number }[] })
          .listAsks,
    );
    // One retry after the 429; any later ask follows an index sync still running (the list
    // polls it once a second: SYNCING_POLL_MS), never a storm.
    expect(asks.length).toBeGreaterThanOrEqual(2);
    expect(asks[0]?.status).toBe(429);
    for (let i = 2; i < asks.length; i++) {
      expect((asks[i]?.asked as number) - (asks[i - 1]?.asked as number)).toBeGreaterThanOrEqual(
        900,
      );
    }
    const waited = (asks[1]?.asked as number) - (asks[0]?.answered as number);
    expect(waited).toBeGreaterThanOrEqual(4_900);
    expect(waited).toBeLessThan(7_000);
    const counts = [...seen].map((t) => t.match(/retrying in (\d+) s/)?.[1]).filter(Boolean);
    expect(counts).toContain('5');
    expect(counts).toContain('1');
    expect(counts).not.toContain('0');
  });

  it('dead ends and mangled links say what happened and offer the way on', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/cards/card_doesnotexist');
    await page.getByRole('heading', { name: 'Card not found' }).waitFor();
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    await screenshot(page, 'screens-card-not-found-390');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('link', { name: '← Back to Cards' }).click();
    await page.waitForURL((url) => url.pathname === '/cards');

    await page.goto(
      `/transactions?subAccountId=${firstSubAccount.id}&status=bogus&from=2026-02-30`,
    );
    await page.getByText('The link’s status “bogus”'.replace('’', "'")).waitFor();
    await page.getByText(/“2026-02-30”/).waitFor();
    const url = new URL(page.url());
    expect(url.searchParams.get('status')).toBeNull();
    expect(url.searchParams.get('from')).toBeNull();
    expect(url.searchParams.get('subAccountId')).toBe(firstSubAccount.id);
    await screenshot(page, 'screens-mangled-link-390');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(await sideways()).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
    // Not found, a 429 handled, an edit cancelled: nothing the app logs as an error.
    expect(appErrors).toEqual([]);
  });

  for (const size of SIZES) {
    it(`${size.width}×${size.height}: sign-in says what each field needs and why single sign-on sent the person back; finance is told the audit trail is not theirs`, async () => {
      const finance = await newPage(browser, product.url, { timezoneId: ZONE, viewport: size });
      const p = finance.page;
      const financeErrors: string[] = [];
      watchConsole(p, financeErrors);
      try {
        // Sent back by single sign-on's per-address limit: said plainly, the way on offered.
        await p.goto('/sign-in?sso=busy');
        await p
          .getByRole('alert')
          .filter({ hasText: 'Too many single sign-on attempts came from your network' })
          .waitFor();
        await p.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
        expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          size.width,
        );
        await screenshot(p, `screens-sign-in-sso-busy-${size.width}`);
        expect(await seriousA11yViolations(p)).toEqual([]);

        await p.goto('/audit');
        await p.waitForURL(/\/sign-in/);
        await p.getByRole('button', { name: 'Sign in', exact: true }).click();
        await p.getByText('Enter your email address.').waitFor();
        await p.getByText('Enter your password.').waitFor();
        expect(await p.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('email');
        expect(await p.evaluate(() => document.body.textContent)).not.toMatch(/Too small|>=1/);
        expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          size.width,
        );
        await screenshot(p, `screens-sign-in-errors-${size.width}`);
        expect(await seriousA11yViolations(p)).toEqual([]);

        await signIn(p, 'finance@demo.test', DEMO_PASSWORD);
        await p.getByRole('heading', { name: 'Not allowed' }).waitFor();
        expect(await p.getByRole('button', { name: 'Retry' }).count()).toBe(0);
        await screenshot(p, `screens-not-allowed-${size.width}`);
        expect(await seriousA11yViolations(p)).toEqual([]);

        // Signed in, the sign-in page goes on to the app.
        await p.goto('/sign-in');
        await p.waitForURL((url) => url.pathname !== '/sign-in');
        expect(finance.problems).toEqual([]);
        // The signed-out first load's 401 and the refused audit screen log nothing of the app's.
        expect(financeErrors).toEqual([]);
      } finally {
        await finance.context.close();
      }
    });
  }

  it('a declined charge is labelled Declined in the list and its detail shows no posted time', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    let declined: Transaction | undefined;
    await expect
      .poll(
        async () => {
          const { body } = await api<{ items?: Transaction[] }>(
            '/api/index/transactions?status=declined',
          );
          declined = body.items?.[0];
          return declined?.status;
        },
        { timeout: 60_000 },
      )
      .toBe('declined');
    // The index's rows say which sub account they are in; the detail screen is opened with it.
    const t = declined as Transaction & { subAccountId: string };

    await page.goto(`/transactions?status=${encodeURIComponent('["declined"]')}`);
    await page.locator('tbody tr td.col-date').first().waitFor();
    const rows = page.locator('tbody tr:has(td.col-date)');
    const shown = Math.min(await rows.count(), 10);
    expect(shown).toBeGreaterThan(0);
    for (let i = 0; i < shown; i++) {
      const row = rows.nth(i);
      expect(await row.locator('td.col-amount').textContent()).toMatch(/^Declined\s*\$/);
      expect(await row.locator('td.col-amount').textContent()).not.toMatch(/−|Debit/);
      // The status badge; the decline's reason follows it in the same cell.
      expect((await row.locator('td.col-status .badge').textContent())?.trim()).toBe('Declined');
    }
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'screens-declined-list-1280-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'screens-declined-list-1280');

    await page.goto(`/transactions/${t.id}?subAccountId=${t.subAccountId}`);
    await page.getByRole('heading', { name: t.description }).waitFor();
    const labels = await page.locator('dl.pairs dt').allTextContents();
    expect(labels).toContain('Card');
    expect(labels).not.toContain('Posted');
    expect(await page.locator('p.big').textContent()).toMatch(/^Declined\s*\$/);
    await screenshot(page, 'screens-declined-detail-1280');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('"?" opens the keyboard shortcuts (Escape closes them, focus returns); "g t" goes to Transactions', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/cards');
    await inTable('.cards-table').waitFor();
    const cardsLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', {
      name: 'Cards',
    });
    await cardsLink.focus();
    await page.keyboard.press('?');
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await sheet.waitFor();
    await sheet.getByText('Go to Transactions').waitFor();
    await screenshot(page, 'screens-shortcuts-1280');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'detached' });
    expect(await cardsLink.evaluate((a) => a === document.activeElement)).toBe(true);

    await page.keyboard.press('g');
    await page.keyboard.press('t');
    await page.waitForURL((url) => url.pathname === '/transactions');
    await page.locator('tbody tr td.col-date').first().waitFor();
    // "/" goes to the page's search; typed there, the same keys are text, not shortcuts.
    await page.locator('#main').focus();
    await page.keyboard.press('/');
    const search = page.locator('#main input[type="search"]').first();
    expect(await search.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.type('gc?');
    expect(await search.inputValue()).toBe('gc?');
    expect(new URL(page.url()).pathname).toBe('/transactions');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await search.fill('');
  });

  it('390×844: the menu opens the navigation, who is signed in and Sign out; the bar stays one line', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/cards');
    await inTable('.cards-table').waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link', { name: 'Transactions' }).isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await nav.getByRole('link', { name: 'Transactions' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await sideways()).toBeLessThanOrEqual(0);
    // The month close's count stays on Transactions' row, not a row of its own.
    const count = nav.locator('.attention-count');
    await count.waitFor();
    const [row, badge] = await Promise.all([
      nav.getByRole('link', { name: 'Transactions', exact: true }).boundingBox(),
      count.boundingBox(),
    ]);
    expect(row && badge).toBeTruthy();
    if (row && badge) {
      expect(Math.abs(row.y + row.height / 2 - (badge.y + badge.height / 2))).toBeLessThan(4);
      expect(badge.x).toBeGreaterThan(row.x);
    }
    await screenshot(page, 'screens-menu-open-390');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'screens-menu-open-390-dark');
    expect(await seriousA11yViolations(page, { colours: 'only' })).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    await nav.getByRole('link', { name: 'Audit' }).click();
    await page.waitForURL((url) => url.pathname === '/audit');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    const header = await page.locator('header.topbar').boundingBox();
    expect(header?.height).toBeLessThan(84);
  });
});

describe('errors and dead ends', () => {
  // A page of its own (its own cookie), signed in as the admin: these checks break the session
  // on purpose at the end.
  let own: Page;
  let ownProblems: string[];
  const ownErrors: string[] = [];
  const ownSideways = () =>
    own.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  beforeAll(async () => {
    ({ page: own, problems: ownProblems } = await newPage(browser, product.url, {
      timezoneId: ZONE,
    }));
    watchConsole(own, ownErrors);
    await own.goto('/sign-in');
    await own.getByLabel('Email').fill('admin@demo.test');
    await own.getByLabel('Second-factor code').waitFor();
    await signIn(own, 'admin@demo.test', DEMO_PASSWORD, () => freshTotp(DEMO_ADMIN_TOTP_SECRET));
    // A change made from a stale view: refused (409), and audited with what it attempted.
    const refused = await own.evaluate(async () => {
      const headers = { 'X-CSRF': '1', 'Content-Type': 'application/json' };
      const list = await (await fetch('/api/cards', { headers })).json();
      const response = await fetch(`/api/cards/${encodeURIComponent(list.items[0].id)}`, {
        method: 'PATCH',
        headers,
        body: JSON.stringify({ name: 'Attempted name', expected: { name: 'Not its name' } }),
      });
      return response.status;
    });
    expect(refused).toBe(409);
  });
  afterAll(async () => {
    await own?.context().close();
  });

  for (const size of SIZES) {
    it(`${size.width}×${size.height}: an address that is no page shows the app's Not found with a way back, not JSON`, async () => {
      await own.setViewportSize(size);
      const answer = await own.goto('/nope');
      expect(answer?.status()).toBe(404);
      expect(answer?.headers()['content-type']).toMatch(/^text\/html/);
      await own.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
      expect(await own.locator('body').textContent()).not.toContain('"code"');
      const back = own.getByRole('link', { name: 'Go to the Overview' });
      expect(await back.isVisible()).toBe(true);
      expect(await ownSideways()).toBeLessThanOrEqual(0);
      await screenshot(own, `errors-not-found-${size.width}`);
      expect(await seriousA11yViolations(own)).toEqual([]);
      await back.click();
      await own.waitForURL((url) => url.pathname === '/overview');
    });

    it(`${size.width}×${size.height}: a 500 on the audit list shows in the list's place in plain words with the request id, the filters kept; Retry loads it; a record opens whole`, async () => {
      await own.setViewportSize(size);
      const requestId = `req-e2e-${size.width}`;
      let failing = true;
      await own.route(
        (url) => url.pathname === '/api/audit',
        (route) =>
          failing
            ? route.fulfill({
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
              })
            : route.continue(),
      );
      await own.goto('/audit?action=card.update');
      const alert = own.getByRole('alert').filter({ hasText: 'Something went wrong on our side' });
      await alert.waitFor();
      expect(await alert.textContent()).toContain(requestId);
      expect(await alert.textContent()).not.toMatch(/500|Internal Server Error/);
      // The screen and its filters stay; only the list's place holds the error.
      expect(await own.getByRole('heading', { level: 1, name: 'Audit' }).isVisible()).toBe(true);
      expect(await own.getByRole('form', { name: 'Audit filters' }).isVisible()).toBe(true);
      expect(await own.getByLabel('Who (email)').isVisible()).toBe(true);
      expect(await ownSideways()).toBeLessThanOrEqual(0);
      await screenshot(own, `errors-list-500-${size.width}`);
      expect(await seriousA11yViolations(own)).toEqual([]);

      failing = false;
      await alert.getByRole('button', { name: 'Retry' }).click();
      const firstWhen = own.locator('.audit-table tbody tr:not(.spacer) td button').first();
      await firstWhen.waitFor();
      expect(await alert.count()).toBe(0);
      expect(new URL(own.url()).search).toBe('?action=card.update');

      await firstWhen.click();
      const dialog = own.getByRole('dialog');
      await dialog.waitFor();
      // The newest edit is the refused one: what it attempted, beside the card before.
      expect(await dialog.textContent()).toContain('Request id');
      expect(await dialog.textContent()).toContain('Attempted (not saved)');
      expect(await dialog.textContent()).toContain('“Attempted name”');
      expect(await ownSideways()).toBeLessThanOrEqual(0);
      await screenshot(own, `audit-record-dialog-${size.width}`);
      expect(await seriousA11yViolations(own)).toEqual([]);
      await own.keyboard.press('Escape');
      expect(await dialog.count()).toBe(0);
      await own.unroute((url) => url.pathname === '/api/audit');
    });
  }

  it("a corrected link's notice is not said again on reload", async () => {
    await own.setViewportSize(SIZES[0]);
    await own.goto('/audit?outcome=maybe');
    await own.getByText(/The link's outcome “maybe”/).waitFor();
    expect(new URL(own.url()).search).toBe('');
    await own.reload();
    await own.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
    await own.locator('.audit-table tbody tr:not(.spacer)').first().waitFor();
    expect(await own.getByText(/The link's outcome “maybe”/).count()).toBe(0);
  });

  it('a session ended elsewhere: a reload goes to sign-in saying why, and signing in returns there', async () => {
    await own.goto('/audit?outcome=success');
    await own.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
    // Ended on the server (as by another tab or an idle timeout), not by this tab's Sign out.
    const ended = await own.evaluate(
      async () =>
        (await fetch('/api/session', { method: 'DELETE', headers: { 'X-CSRF': '1' } })).status,
    );
    expect(ended).toBeLessThan(300);
    await own.reload();
    await own.waitForURL((url) => url.pathname === '/sign-in');
    await own.getByText('Your session ended').waitFor();
    await signIn(own, 'admin@demo.test', DEMO_PASSWORD, () => freshTotp(DEMO_ADMIN_TOTP_SECRET));
    await own.waitForURL((url) => url.pathname === '/audit');
    expect(new URL(own.url()).searchParams.get('outcome')).toBe('success');
    expect(ownProblems).toEqual([]);
    expect(ownErrors.filter((e) => !/500/.test(e))).toEqual([]);
  });
});
