// The bell with a real alert (issue 32): the product in production mode against the standalone
// simulator, in a real Chromium. A finance person sets a "declined" rule on the rules screen;
// the simulator then sees a new declined card payment (its test route, as if the card program
// had just declined it); Refresh on Transactions syncs the index, the sync raises the alert,
// and the bell's count goes up and its inbox names the payment (merchant, amount, reason).
// Mark all read brings the count down. "Send test" on the rule puts an example, marked a test,
// in the inbox. At 1280×800 and 390×844, screenshots of the bell open and of the test sent.
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeclinedRule, unreadAlerts } from './support/alerts';
import { launchChromium, newPage, screenshot, seriousA11yViolations } from './support/browser';
import { type Running, startProduct, startSimulator } from './support/product';
import { signIn } from './support/sign-in';
import { writeUsersFile } from './support/users-file';

const apiKey = `k_${randomBytes(24).toString('base64url')}`;
const password = randomBytes(12).toString('base64url');
const EMAIL = 'finance@corp.test';

let sim: Running;
let product: Running;
let browser: Browser;
let page: Page;
let problems: string[] = [];

beforeAll(async () => {
  sim = await startSimulator(apiKey, { SIM_TEST_HOOKS: '1' });
  const usersFile = writeUsersFile([{ email: EMAIL, role: 'finance', password }]);
  product = await startProduct({
    CARD_API_BASE_URL: sim.url,
    CARD_API_KEY: apiKey,
    USERS_FILE: usersFile,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // The index's open days are read again by a read 5 s after the last: Refresh's own floor.
    INSIGHTS_REFRESH_SECONDS: '5',
  });
  browser = await launchChromium();
  ({ page, problems } = await newPage(browser, product.url));
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await sim?.stop();
});

/** The card service's own answer, asked directly with the key (never through the browser). */
async function simGet<T>(path: string): Promise<T> {
  const response = await fetch(`${sim.url}${path}`, { headers: { 'x-api-key': apiKey } });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

const unreadCount = () => unreadAlerts(page);

const bell = () => page.getByRole('button', { name: /^Alerts(, [\d,+]+ unread)?$/ });

/** What the simulator declined, as the test route answered it. */
let declined: { id: string; subAccountId: string; cardId: string };

describe('the bell with an alert raised by a new declined transaction', () => {
  it('a finance person signs in and sets a "declined" rule for themselves', async () => {
    await page.goto('/sign-in');
    await signIn(page, EMAIL, password);
    await createDeclinedRule(page, 'Declines');
    expect(problems).toEqual([]);
  });

  it('the first sync raises nothing: the declines before the rule are not news', async () => {
    await page.goto('/transactions');
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    // The first sync reads two years of every sub account: slow on a busy machine.
    await page.getByText(/^Updated /).waitFor({ timeout: 240_000 });
    expect(await unreadCount()).toBe(0);
    await page.reload();
    await bell().waitFor();
    expect(await bell().getAttribute('aria-label')).toBe('Alerts');
    // The inbox, empty, says the rule is on and what it waits for (not "Set up alert rules").
    for (const size of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(size);
      await bell().click();
      const dialog = page.getByRole('dialog', { name: 'Alerts' });
      await dialog
        .getByText(/^No alerts yet\. One alert rule is on and sends here: an alert comes when/)
        .waitFor();
      await screenshot(page, `bell-empty-with-a-rule-${size.width}`);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 300_000);

  it('the simulator declines a card payment; Refresh syncs it and the count goes up', async () => {
    const subs = await simGet<{ items: { id: string }[] }>('/sub-account');
    const subAccountId = subs.items[0]?.id ?? '';
    const settled = await simGet<{ items: { cardId?: string }[] }>(
      `/transaction?subAccountId=${subAccountId}&status=settled`,
    );
    const cardId = settled.items.find((t) => t.cardId)?.cardId;
    if (!cardId) throw new Error('the simulator has no card payment to take a card from');
    const response = await fetch(`${sim.url}/__testing/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        subAccountId,
        cardId,
        amountCents: -12_345,
        status: 'declined',
        declineReason: 'Card frozen by an admin',
        description: 'Blue Taxi Co',
        merchantDescription: 'BLUE TAXI CO NEW YORK',
        categoryCode: '4121',
      }),
    });
    expect(response.status).toBe(201);
    declined = (await response.json()) as typeof declined;

    // Refresh, as a person would, until the sync has read the new day's rows (Refresh reads
    // open days at most once in 5 s, so the first press may find them fresh).
    const refresh = page.getByRole('button', { name: 'Refresh', exact: true });
    const deadline = Date.now() + 150_000;
    const status = page.locator('.index-freshness [role="status"]');
    while ((await unreadCount()) === 0) {
      if (Date.now() > deadline) {
        throw new Error(
          `no alert within 150 s of the decline; the screen: ${await status.textContent()}`,
        );
      }
      if ((await refresh.getAttribute('aria-disabled')) !== 'true') await refresh.click();
      await page.waitForTimeout(1_500);
    }
    expect(await unreadCount()).toBe(1);
    // The bell asks on focus and once a minute; a new page asks at once.
    await page.reload();
    await page.getByRole('button', { name: 'Alerts, 1 unread' }).waitFor();
    expect(await bell().textContent()).toBe('1');
    expect(problems).toEqual([]);
  }, 200_000);

  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    it(`${size.width}: the inbox names the declined payment, unread, linking to it`, async () => {
      await page.setViewportSize(size);
      await page.goto('/sub-accounts');
      await page.getByRole('button', { name: 'Alerts, 1 unread' }).click();
      const dialog = page.getByRole('dialog', { name: 'Alerts' });
      const item = dialog.locator('.inbox-item');
      await item.first().waitFor();
      expect(await item.count()).toBe(1);
      // The merchant by its name, as the index groups it (the detail's "merchant" says which).
      const { name } = await page.evaluate(async () => {
        const res = await fetch('/api/index/merchant?descriptor=BLUE%20TAXI%20CO%20NEW%20YORK', {
          headers: { 'X-CSRF': '1' },
        });
        return (await res.json()) as { name: string };
      });
      expect(name).toMatch(/^Blue Taxi/);
      expect(await item.locator('.inbox-summary').textContent()).toBe(
        `Declined · ${name} $123.45 · Card frozen by an admin`,
      );
      expect(await item.getAttribute('class')).toContain('unread');
      expect(await item.getByRole('link').getAttribute('href')).toBe(
        `/transactions/${declined.id}`,
      );
      expect(
        await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        ),
      ).toBeLessThanOrEqual(0);
      await screenshot(page, `bell-open-${size.width}`);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(problems).toEqual([]);
    });
  }

  it('Mark all read brings the count down; the alert stays, read, and opens the payment', async () => {
    await page.getByRole('button', { name: 'Alerts, 1 unread' }).click();
    const dialog = page.getByRole('dialog', { name: 'Alerts' });
    await dialog.locator('.inbox-item.unread').waitFor();
    await dialog.getByRole('button', { name: 'Mark all read' }).click();
    await dialog.locator('.inbox-item:not(.unread)').waitFor();
    await page.getByRole('button', { name: 'Alerts', exact: true }).waitFor();
    expect(await unreadCount()).toBe(0);
    await screenshot(page, 'bell-open-read-390');
    await dialog.getByRole('link', { name: /Declined · Blue Taxi/ }).click();
    await page.waitForURL((url) => url.pathname === `/transactions/${declined.id}`);
    await page.getByText('Card frozen by an admin').first().waitFor();
    // Still read after a new page.
    await page.reload();
    await page.getByRole('button', { name: 'Alerts', exact: true }).waitFor();
    expect(problems).toEqual([]);
  });
});

describe('a test alert sent from its rule', () => {
  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    it(`${size.width}: "Send test" says where it went, and the bell counts an example marked a test`, async () => {
      await page.setViewportSize(size);
      await page.goto('/alerts');
      const mine = page.getByRole('region', { name: 'Your rules' });
      await mine.getByRole('button', { name: 'Send test of Declines' }).click();
      await mine.getByText('Test sent to your inbox.', { exact: true }).waitFor();
      // The bell's name beside the server's count: when they are not 1, the failure says which
      // one differs, and what it counted instead.
      await expect
        .poll(async () => `${await bell().getAttribute('aria-label')}; ${await unreadCount()}`)
        .toBe('Alerts, 1 unread; 1');
      expect(
        await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        ),
      ).toBeLessThanOrEqual(0);
      await screenshot(page, `alert-rules-test-sent-${size.width}`);
      expect(await seriousA11yViolations(page)).toEqual([]);

      await page.getByRole('button', { name: 'Alerts, 1 unread' }).click();
      const dialog = page.getByRole('dialog', { name: 'Alerts' });
      const first = dialog.locator('.inbox-item').first();
      await first.waitFor();
      expect(await first.locator('.inbox-summary').textContent()).toBe(
        'Test of “Declines” · Declined · Example merchant $42.50 · Insufficient funds',
      );
      expect(await first.getAttribute('class')).toContain('unread');
      expect(await first.getByRole('link').getAttribute('href')).toBe('/alerts');
      await screenshot(page, `bell-open-test-alert-${size.width}`);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Mark all read' }).click();
      await page.getByRole('button', { name: 'Alerts', exact: true }).waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(problems).toEqual([]);
    });
  }
});
