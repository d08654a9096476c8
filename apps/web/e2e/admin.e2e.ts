import type { Card, RevealResponse } from '@card-console/shared/api/cards';
import { centsToDollarInput, formatCents } from '@card-console/shared/money';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newPage, screenshot, seriousA11yViolations } from './support/browser';
import { mainNav } from './support/nav';
import { type Running, startProduct } from './support/product';
import { DEMO_ADMIN_TOTP_SECRET, DEMO_PASSWORD } from './support/sign-in';
import { freshTotp } from './support/totp';

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

async function expectAccessible(name: string, options: { screenshot?: boolean } = {}) {
  // No screenshot of revealed card details: even a simulated number stays off the disk.
  if (options.screenshot !== false) await screenshot(page, `admin-${name}`);
  expect(await seriousA11yViolations(page), name).toEqual([]);
  expect(problems, name).toEqual([]);
}

/** Whether an element's text is in the theme's error colour (whatever the theme). */
function inErrorColour(el: Element): boolean {
  const probe = document.createElement('span');
  probe.style.color = 'var(--error)';
  document.body.append(probe);
  const error = getComputedStyle(probe).color;
  probe.remove();
  return getComputedStyle(el).color === error;
}

const sidewaysOverflow = () =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/**
 * A screenshot with the card number and security code painted over: the layout is seen, a
 * revealed value (even a simulated one) never reaches the disk.
 */
async function maskedScreenshot(name: string) {
  await screenshot(page, `admin-${name}`, {
    mask: [page.getByTestId('pan'), page.getByTestId('cvv')],
  });
}

const grouped = (pan: string) => pan.replace(/(.{4})(?=.)/g, '$1 ');
let card: Card;
let newMaximumCents = 0;

describe('an admin', () => {
  it('signs in with the second factor: a calm step of its own, the code focused, six digits send it', async () => {
    await page.goto('/');
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel('Email').fill('admin@demo.test');
    // The demo admin is known: the code field is offered before the server asks.
    await page.getByLabel('Second-factor code').waitFor();
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    // Without a code, Sign in leads to the second step.
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/Signing in as/).waitFor();
    const code = page.getByLabel('Second-factor code');
    await expect.poll(() => code.evaluate((el) => el === document.activeElement)).toBe(true);
    // The instruction is no error before a wrong code: no alert, nothing in the error colour.
    const instruction = page.getByText('Enter the 6-digit code from your authenticator app.');
    await instruction.waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.locator('.form-error, .field-error').count()).toBe(0);
    await expect(instruction.evaluate(inErrorColour)).resolves.toBe(false);
    expect(await page.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);
    await expectAccessible('sign-in-second-step');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await sidewaysOverflow()).toBeLessThanOrEqual(0);
    await expectAccessible('sign-in-second-step-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });

    // A wrong code is a real error: said, in red, the field emptied and focused again. (A made-up
    // code matches one of the three codes the BFF accepts once in ~330,000 runs.)
    await code.fill('000000');
    const wrong = page.getByRole('alert');
    await wrong.waitFor();
    await expect(wrong.evaluate(inErrorColour)).resolves.toBe(true);
    await expect(code.inputValue()).resolves.toBe('');
    await expect.poll(() => code.evaluate((el) => el === document.activeElement)).toBe(true);

    // Six digits send themselves: no press, one request.
    const signIns: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/session')
        signIns.push(r.url());
    });
    await code.fill(await freshTotp(DEMO_ADMIN_TOTP_SECRET));
    // Everyone lands on the Overview.
    await page.waitForURL((url) => url.pathname === '/overview');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(signIns).toHaveLength(1);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Audit' }).waitFor();
    await nav.getByRole('link', { name: 'Sub accounts' }).click();
    await page.getByRole('button', { name: 'Create sub account' }).waitFor();
    await expectAccessible('sub-accounts');
  });

  it('reveals a card with a reason; the numbers are masked again after the countdown', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Cards' })
      .click();
    await page.getByLabel('Status', { exact: true }).selectOption('active');
    await page.waitForURL(/status=active/);
    await page.locator('tbody tr th a').first().click();
    await page.getByText('Spending constraint').waitFor();
    const cardId = page.url().split('/cards/')[1]?.split('?')[0] ?? '';
    card = await page.evaluate(
      (id) => fetch(`/api/cards/${id}`, { headers: { 'X-CSRF': '1' } }).then((r) => r.json()),
      cardId,
    );
    const masked = `•••• •••• •••• ${card.last4}`;
    await expect(page.getByTestId('pan').textContent()).resolves.toBe(masked);
    // The card's actions at the top right, level with its name.
    const edit = page.getByRole('button', { name: 'Edit name and limits' });
    const title = page.getByRole('heading', { level: 1, name: card.name });
    const [editBox, titleBox] = [await edit.boundingBox(), await title.boundingBox()];
    expect(editBox && titleBox && editBox.x > titleBox.x + titleBox.width).toBe(true);
    expect(editBox && titleBox && editBox.y < titleBox.y + titleBox.height).toBe(true);
    await expectAccessible('card-detail');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await sidewaysOverflow()).toBeLessThanOrEqual(0);
    await expectAccessible('card-detail-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole('button', { name: 'Reveal card details' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reveal card details' });
    // Preset reasons beside the free text.
    for (const preset of ['Card holder on the phone', 'Vendor payment', 'Subscription update']) {
      await dialog.getByRole('button', { name: preset }).waitFor();
    }
    await dialog.getByLabel('Reason').fill('Booking a conference hotel by phone');
    await expectAccessible('reveal-dialog');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await sidewaysOverflow()).toBeLessThanOrEqual(0);
    await expectAccessible('reveal-dialog-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
    const answer = page.waitForResponse((r) => r.url().endsWith(`/api/cards/${cardId}/reveal`));
    await dialog.getByRole('button', { name: 'Reveal' }).click();
    if (
      await dialog
        .getByLabel('Second-factor code')
        .isVisible()
        .catch(() => false)
    ) {
      // Six digits reveal by themselves.
      await dialog.getByLabel('Second-factor code').fill(await freshTotp(DEMO_ADMIN_TOTP_SECRET));
    }
    const response = await answer;
    expect(response.headers()['cache-control']).toContain('no-store');
    const revealed = (await response.json()) as RevealResponse;
    expect(revealed.pan.endsWith(card.last4)).toBe(true);

    await page.getByText(grouped(revealed.pan)).waitFor();
    await expect(page.getByTestId('cvv').textContent()).resolves.toContain(revealed.cvv);
    await page.getByText(/Hidden again in \d+ s/).waitFor();
    // Number, expiry and CVV together in one panel with "Copy all"; their shapes checked, never
    // printed (a failed check says true/false, not the value).
    const panel = page.getByRole('region', { name: 'Card number, expiry and security code' });
    const number = ((await panel.getByTestId('pan').textContent()) ?? '').replace(/\s/g, '');
    const expiry = (await panel.getByTestId('expiry').textContent()) ?? '';
    const cvv = (await panel.getByTestId('cvv').textContent()) ?? '';
    expect(/^\d{12,19}$/.test(number), 'number: 12–19 digits').toBe(true);
    expect(/^(0[1-9]|1[0-2])\/\d{2}$/.test(expiry), 'expiry: MM/YY').toBe(true);
    expect(/^\d{3,4}$/.test(cvv), 'CVV: 3–4 digits').toBe(true);
    expect(number.endsWith(card.last4)).toBe(true);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await panel.getByRole('button', { name: 'Copy all' }).click();
    await page.getByRole('status').filter({ hasText: 'Number, expiry and CVV copied' }).waitFor();
    await maskedScreenshot('revealed');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await sidewaysOverflow()).toBeLessThanOrEqual(0);
    await maskedScreenshot('revealed-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
    await expectAccessible('revealed', { screenshot: false });
    // Nowhere but the page: not in the URL or any storage.
    expect(page.url()).not.toContain(revealed.pan);
    const stored = await page.evaluate(() =>
      JSON.stringify({ ...localStorage, ...sessionStorage }),
    );
    expect(stored).not.toContain(revealed.pan);

    await page.getByText(grouped(revealed.pan)).waitFor({ state: 'detached', timeout: 40_000 });
    await expect(page.getByTestId('pan').textContent()).resolves.toBe(masked);
    await expect(page.getByTestId('cvv').textContent()).resolves.toBe('•••');
    await expect(page.locator('body').textContent()).resolves.not.toContain(revealed.pan);
  });

  it('changes the card limits, confirmed old → new; kept after a reload', async () => {
    const oldMax = card.transactionSizeLimit.maximumCents;
    const oldMin = card.transactionSizeLimit.minimumCents ?? 0;
    newMaximumCents = Math.max(oldMin, oldMax ?? 0) + 12_345;
    await page.getByRole('button', { name: 'Edit name and limits' }).click();
    const max = page.getByLabel('Maximum per transaction (USD)');
    // Dollars with a "$" before them, in a field an amount's width, not the page's.
    const money = page.locator('.money-input').filter({ has: max });
    await expect(money.locator('.money-prefix').textContent()).resolves.toBe('$');
    const width = (await max.boundingBox())?.width ?? 0;
    expect(width).toBeGreaterThan(100);
    expect(width).toBeLessThan(260);
    await screenshot(page, 'admin-limit-edit');
    await max.fill(centsToDollarInput(newMaximumCents));
    await page.getByRole('button', { name: 'Review changes' }).click();
    const confirm = page.getByRole('region', { name: 'Confirm changes' });
    await expect(confirm.textContent()).resolves.toContain(
      `Maximum per transaction: ${oldMax === undefined ? 'none' : formatCents(oldMax)} → ${formatCents(newMaximumCents)}`,
    );
    // A higher maximum is a looser limit, said as such (not old-red, new-green).
    await confirm.getByText('Looser limit').waitFor();
    // The preview: the current limits and the proposed ones side by side over the card's own
    // charges, and looser or not from that comparison (a higher maximum never refuses more).
    const preview = confirm
      .getByRole('status')
      .filter({ hasText: /the current limits|no transactions in the last 90 days/ });
    await preview.waitFor();
    if (!(await preview.textContent())?.includes('no transactions')) {
      const limits = (max?: number) =>
        max === undefined
          ? `from ${formatCents(oldMin)}, no maximum`
          : `${formatCents(oldMin)} to ${formatCents(max)}`;
      const table = preview.getByRole('table');
      await expect(table.locator('thead th').allTextContents()).resolves.toEqual([
        'Of this card’s charges',
        `Current limits ${limits(oldMax)}`,
        `Proposed limits ${limits(newMaximumCents)}`,
      ]);
      const refused = await table.locator('tbody tr').first().locator('td').allTextContents();
      const [now, then] = refused.map((cell) => Number(cell.split(' · ')[0]?.replace(/,/g, '')));
      expect(then).toBeLessThanOrEqual(now ?? 0);
      await expect(preview.textContent()).resolves.toMatch(
        // Equal refusals: a size-limit decline between the two maximums may still make it looser.
        then === now
          ? /^(No different from the current limits on these 90 days|Looser than the current limits\.)/
          : /^Looser than the current limits\. [\d,]+ of this card’s charges \(total \$[\d,.]+\) (is|are) outside the current limits and within the proposed ones\./,
      );
    }
    await expectAccessible('limit-confirm');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await sidewaysOverflow()).toBeLessThanOrEqual(0);
    await expectAccessible('limit-confirm-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });

    // A maximum far below the card's charges: tighter, said from the charges it would refuse.
    await page.getByRole('button', { name: 'Back to editing' }).click();
    await max.fill(centsToDollarInput(Math.max(oldMin, 1_000)));
    await page.getByRole('button', { name: 'Review changes' }).click();
    await confirm.getByText('Tighter limit').waitFor();
    await preview.waitFor();
    if (!(await preview.textContent())?.includes('no transactions')) {
      await expect(preview.textContent()).resolves.toMatch(
        /^(Tighter than the current limits\.|Tighter for some charges|No different from the current limits)/,
      );
    }
    await expectAccessible('limit-confirm-tighter');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await sidewaysOverflow()).toBeLessThanOrEqual(0);
    await expectAccessible('limit-confirm-tighter-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Back to editing' }).click();
    await max.fill(centsToDollarInput(newMaximumCents));
    await page.getByRole('button', { name: 'Review changes' }).click();
    await confirm.getByText('Looser limit').waitFor();
    await page.getByRole('button', { name: 'Confirm changes' }).click();
    await page.getByText('Card updated.').waitFor();
    await page.getByText(formatCents(newMaximumCents), { exact: true }).first().waitFor();

    await page.reload();
    await page.getByText('Spending constraint').waitFor();
    await page.getByText(formatCents(newMaximumCents), { exact: true }).first().waitFor();
  });

  it('sees the reveal and the change in the audit screen', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Audit' })
      .click();
    await page.getByRole('heading', { name: 'Audit' }).waitFor();
    const change = page.getByRole('row', { name: /Edit card/ }).first();
    const oldMax = card.transactionSizeLimit.maximumCents;
    await expect(change.textContent()).resolves.toContain(
      `Maximum: ${oldMax === undefined ? 'none' : formatCents(oldMax)} → ${formatCents(newMaximumCents)}`,
    );
    await expect(change.textContent()).resolves.toContain(card.last4);
    const reveal = page.getByRole('row', { name: /Reveal card/ }).first();
    await expect(reveal.textContent()).resolves.toContain('Booking a conference hotel by phone');
    await expectAccessible('audit');
  });

  it('filters the audit by action and by card and sees only matching rows; Clear filters shows all', async () => {
    const rowsText = () => page.locator('tbody tr').allTextContents();
    const listAnswer = (param: string) =>
      page.waitForResponse((r) => r.url().includes('/api/audit?') && r.url().includes(param));
    /** The rows once they are the filtered list's: every one must match. */
    const rowsWhenAll = async (matches: (row: string) => boolean) => {
      const allMatch = async () => {
        const rows = await rowsText();
        return rows.length > 0 && rows.every(matches);
      };
      // A generous hang guard, not a timing: the list is replaced once its answer is in.
      await expect.poll(allMatch, { timeout: 15_000 }).toBe(true);
      return rowsText();
    };

    let answer = listAnswer('action=card.reveal');
    await page.getByLabel('Action').selectOption({ label: 'Reveal card' });
    expect((await answer).status()).toBe(200);
    await page.waitForURL(/action=card\.reveal/);
    await rowsWhenAll((row) => row.includes('Reveal card'));

    // The card filter's choices load when it is focused.
    const cardFilter = page.getByLabel('Card', { exact: true });
    await cardFilter.focus();
    await cardFilter.locator(`option[value="${card.id}"]`).waitFor({ state: 'attached' });
    answer = listAnswer(`cardId=${card.id}`);
    await cardFilter.selectOption(card.id);
    expect((await answer).status()).toBe(200);
    await page.waitForURL(new RegExp(`cardId=${card.id}`));
    const ofCard = await rowsWhenAll(
      (row) => row.includes('Reveal card') && row.includes(card.name) && row.includes(card.last4),
    );
    expect(ofCard.join('\n')).toContain('Booking a conference hotel by phone');
    await expectAccessible('audit-filtered');

    // A copied link reproduces the view.
    await page.reload();
    await expect(page.getByLabel('Action').inputValue()).resolves.toBe('card.reveal');
    await page.locator('tbody tr').first().waitFor();
    expect(await rowsText()).toEqual(ofCard);

    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessible('audit-filtered-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((url) => url.pathname === '/audit' && url.search === '');
    await page
      .getByRole('row', { name: /Edit card/ })
      .first()
      .waitFor();
  });

  it('when another admin changed the card meanwhile, sees both and applies the change on top', async () => {
    await page.goto(`/cards/${card.id}`);
    await page.getByText('Spending constraint').waitFor();
    const mine = newMaximumCents + 10_000;
    await page.getByRole('button', { name: 'Edit name and limits' }).click();
    await page.getByLabel('Maximum per transaction (USD)').fill(centsToDollarInput(mine));
    await page.getByRole('button', { name: 'Review changes' }).click();

    // Someone else raises the minimum from another window, through the same API.
    const theirMinimum = (card.transactionSizeLimit.minimumCents ?? 0) + 100;
    const status = await page.evaluate(
      async ({ id, minimum, maximum }) => {
        const headers = { 'X-CSRF': '1', 'Content-Type': 'application/json' };
        const now = await fetch(`/api/cards/${id}`, { headers }).then((r) => r.json());
        const response = await fetch(`/api/cards/${id}`, {
          method: 'PATCH',
          headers,
          body: JSON.stringify({
            transactionSizeLimit: { minimumCents: minimum },
            expected: {
              minimumCents: now.transactionSizeLimit.minimumCents ?? null,
              maximumCents: maximum,
            },
          }),
        });
        return response.status;
      },
      { id: card.id, minimum: theirMinimum, maximum: newMaximumCents },
    );
    expect(status).toBe(200);

    await page.getByRole('button', { name: 'Confirm changes' }).click();
    const heading = page.getByRole('heading', { name: 'Someone else changed this card' });
    await heading.waitFor();
    await expect(heading.evaluate((h) => h === document.activeElement)).resolves.toBe(true);
    const table = page.getByRole('table', { name: "The card's values and your change" });
    await expect(table.getByRole('row', { name: /Minimum/ }).textContent()).resolves.toContain(
      `${formatCents(theirMinimum)} changed`,
    );
    await expectAccessible('limit-conflict');
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessible('limit-conflict-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole('button', { name: 'Apply my change to the current values' }).click();
    await page.getByText('Card updated.').waitFor();
    const saved: Card = await page.evaluate(
      (id) => fetch(`/api/cards/${id}`, { headers: { 'X-CSRF': '1' } }).then((r) => r.json()),
      card.id,
    );
    expect(saved.transactionSizeLimit).toEqual({ minimumCents: theirMinimum, maximumCents: mine });
  });

  it('is readable in a narrow window', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await (await mainNav(page)).getByRole('link', { name: 'Transactions' }).click();
    await page.getByRole('heading', { name: 'Transactions' }).waitFor();
    await page.getByTestId('loaded-count').waitFor();
    await page.locator('tbody tr').first().waitFor();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessible('transactions-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
