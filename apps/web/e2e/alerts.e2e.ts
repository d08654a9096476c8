// Alerts (issue 32) as people see them, at a laptop's 1280×800 and a phone's 390×844, in a real
// Chromium against `pnpm start` (the real BFF's alerts endpoints): a person creates a "declined"
// rule on the rules screen, the bell stays in the one-line top bar, its inbox opens and closes;
// nothing scrolls sideways, axe finds nothing serious, light and dark. The inbox's five kinds are
// stubbed in the browser here (demo mode raises none by itself, and balance rules raise nothing
// yet); `bell.e2e.ts` raises a real alert end to end, from a decline in the simulator.
import type { AlertRuleList } from '@card-console/shared/api/alerts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newPage, screenshot, seriousA11yViolations } from './support/browser';
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

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium();
  ({ page, problems } = await newPage(browser, product.url));
});

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

const sideways = () =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Screenshots light and dark; axe finds nothing serious in either. */
async function lookAt(name: string) {
  expect(await sideways(), name).toBeLessThanOrEqual(0);
  await screenshot(page, `alerts-${name}`);
  expect(await seriousA11yViolations(page), name).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, `alerts-${name}-dark`);
  expect(await seriousA11yViolations(page, { colours: 'only' }), `${name}, dark`).toEqual([]);
  await page.emulateMedia({ colorScheme: 'light' });
}

const rules = () =>
  page.evaluate(async () => {
    const response = await fetch('/api/alerts/rules', { headers: { 'X-CSRF': '1' } });
    return (await response.json()) as AlertRuleList;
  });

describe('alerts at 1280×800 and 390×844', () => {
  it('an admin signs in', async () => {
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill('admin@demo.test');
    await page.getByLabel('Second-factor code').waitFor();
    await signIn(page, 'admin@demo.test', DEMO_PASSWORD, () => freshTotp(DEMO_ADMIN_TOTP_SECRET));
  });

  for (const size of SIZES) {
    const tag = `${size.width}`;
    it(`${tag}: creates a "declined" rule, shown in the list; the form's messages and the screen pass axe`, async () => {
      await page.setViewportSize(size);
      await page.goto('/alerts');
      await page.getByRole('heading', { name: 'Alert rules', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'New rule' }).click();
      const form = page.locator('form.alert-rule-form');
      // Unnamed, the rule would be called what it watches (the Name's placeholder); an amount
      // rule with no amount is refused beside the amount, and nothing is saved.
      await form.getByLabel('Alert me when').selectOption('amount_above');
      await form.getByRole('button', { name: 'Create rule' }).click();
      await form.locator('input[aria-invalid="true"]').waitFor();
      expect(await form.getByLabel('Amount over (USD)').getAttribute('aria-invalid')).toBe('true');
      expect(await form.getByLabel('Name').getAttribute('placeholder')).toBe('Large charges');
      await lookAt(`form-${tag}`);

      const name = `Declines (${tag})`;
      await form.getByLabel('Name').fill(name);
      await form.getByLabel('Alert me when').selectOption('declined');
      // Each size's rule over a scope of its own: the same rule twice is refused (409).
      await form.getByLabel('Sub account').selectOption({ index: SIZES.indexOf(size) });
      await form.getByRole('button', { name: 'Create rule' }).click();
      await form.waitFor({ state: 'detached' });
      const mine = page.getByRole('region', { name: 'Your rules' });
      await mine.getByText(name, { exact: true }).waitFor();
      const saved = (await rules()).items.find((r) => r.name === name);
      expect(saved).toMatchObject({
        kind: 'declined',
        channels: { inbox: true, email: false, webhookTargetId: null },
        enabled: true,
        team: false,
      });
      await lookAt(`rules-${tag}`);
      expect(problems).toEqual([]);
    });

    it(`${tag}: the bell is in the one-line top bar with its count; its inbox opens, Escape closes it`, async () => {
      await page.setViewportSize(size);
      await page.goto('/sub-accounts');
      const bell = page.getByRole('button', { name: /^Alerts(, [\d,]+ unread)?$/ });
      await bell.waitFor();
      const header = await page.locator('header.topbar').boundingBox();
      const box = await bell.boundingBox();
      expect(box && header).toBeTruthy();
      if (!box || !header) return;
      // Inside the bar, and on a phone the bar stays one compact line (under 10% of the window).
      expect(box.y).toBeGreaterThanOrEqual(header.y);
      expect(box.y + box.height).toBeLessThanOrEqual(header.y + header.height);
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      // One line: Sign out (or, on a phone, Menu) level with the bell.
      const last = page.getByRole('button', { name: size.width === 390 ? 'Menu' : 'Sign out' });
      const lastBox = await last.boundingBox();
      expect(
        Math.abs((lastBox?.y ?? 0) + (lastBox?.height ?? 0) / 2 - (box.y + box.height / 2)),
      ).toBeLessThan(8);
      expect(header.height).toBeLessThan(64);
      if (size.width === 390) {
        expect(header.height).toBeLessThan(size.height * 0.1);
        // Beside Menu, not inside it.
        expect(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded')).toBe(
          'false',
        );
      }
      // The name says the count the BFF has.
      const { unread } = await page.evaluate(async () => {
        const r = await fetch('/api/alerts/inbox/unread-count', { headers: { 'X-CSRF': '1' } });
        return (await r.json()) as { unread: number };
      });
      expect(await bell.getAttribute('aria-label')).toBe(
        unread > 99 ? 'Alerts, 99+ unread' : unread > 0 ? `Alerts, ${unread} unread` : 'Alerts',
      );
      await lookAt(`bar-${tag}`);

      await bell.click();
      const dialog = page.getByRole('dialog', { name: 'Alerts' });
      await dialog.waitFor();
      await dialog.locator('.inbox-list, .inbox-empty, .error-state').first().waitFor();
      expect(await dialog.locator('.error-state').count()).toBe(0);
      await lookAt(`inbox-${tag}`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await bell.evaluate((el) => el === document.activeElement)).toBe(true);

      // "Alert rules" in the inbox opens the rules screen.
      await bell.click();
      await dialog.getByRole('link', { name: 'Alert rules', exact: true }).click();
      await page.getByRole('heading', { name: 'Alert rules', level: 1 }).waitFor();
      expect(problems).toEqual([]);
    });

    it(`${tag}: with alerts (answers stubbed in the browser: the demo raises none by itself), the badge says 99+ and each kind reads in one line`, async () => {
      await page.setViewportSize(size);
      const at = new Date(Date.now() - 5 * 60_000).toISOString();
      const common = {
        ruleId: 'r',
        ruleName: 'Rule',
        raisedAt: at,
        readAt: null,
        subAccountId: 'sa',
        subAccountName: 'Operations',
      };
      const tx = { transactionAt: at, status: 'DECLINED', description: 'BLUE TAXI' };
      const items = [
        {
          kind: 'declined',
          ...common,
          ...tx,
          id: 'a1',
          transactionId: 't1',
          amountCents: -1240,
          merchant: 'Blue Taxi',
          declineReason: 'Card paused',
        },
        {
          kind: 'amount_above',
          ...common,
          ...tx,
          id: 'a2',
          transactionId: 't2',
          amountCents: -81200,
          merchant: 'Oak Suites',
          thresholdCents: 50000,
          readAt: at,
        },
        {
          kind: 'utilisation_above',
          ...common,
          id: 'a3',
          cardId: 'c1',
          last4: '4242',
          sharePercent: 80,
          limitCents: 100000,
          spentCents: 85000,
          windowStart: '2026-11-01',
          windowEnd: '2026-11-30',
          timeZone: 'UTC',
        },
        {
          kind: 'new_category',
          ...common,
          ...tx,
          id: 'a4',
          transactionId: 't4',
          amountCents: -900,
          cardName: 'Travel',
          last4: '4242',
          categoryCode: 'Taxicabs',
        },
        {
          kind: 'balance_below',
          ...common,
          id: 'a5',
          thresholdCents: 100000,
          balanceCents: 90000,
          day: '2026-11-27',
        },
      ];
      await page.route('**/api/alerts/inbox/unread-count', (route) =>
        route.fulfill({ json: { unread: 120 } }),
      );
      await page.route('**/api/alerts/inbox?*', (route) =>
        route.fulfill({ json: { items, next: 'more' } }),
      );
      try {
        await page.goto('/sub-accounts');
        const bell = page.getByRole('button', { name: 'Alerts, 99+ unread' });
        await bell.waitFor();
        expect(await bell.textContent()).toBe('99+');
        await bell.click();
        const dialog = page.getByRole('dialog', { name: 'Alerts' });
        await dialog.getByRole('link', { name: /Blue Taxi/ }).waitFor();
        expect(await dialog.locator('.inbox-summary').allTextContents()).toEqual([
          'Declined · Blue Taxi $12.40 · Card paused',
          'Over $500 · Oak Suites $812.00',
          'Card ••••4242 at 85% of its limit ($850.00 of $1,000.00)',
          'New category for card Travel ••••4242: Taxicabs',
          'Operations balance under $1,000.00',
        ]);
        expect(await dialog.getByRole('button', { name: 'Load more' }).isVisible()).toBe(true);
        await lookAt(`inbox-items-${tag}`);
        await page.keyboard.press('Escape');
      } finally {
        await page.unrouteAll();
      }
      expect(problems).toEqual([]);
    });
  }
});
