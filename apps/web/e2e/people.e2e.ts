// People (issue 32) as admins and invitees see it, at a laptop's 1280×800 and a phone's 390×844,
// in a real Chromium against `pnpm start` (the real BFF's people endpoints): an admin invites
// someone (with the second-factor check the change asks for), the one-time link is shown once;
// the invitee opens it, the token leaves the address bar, they choose a password and enrol an
// authenticator, and the used link then says so. Nothing scrolls sideways (tables scroll inside
// their panel), axe finds nothing serious.
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
let adminLink = '';
let financeLink = '';
const FINANCE_EMAIL = `procurement.${'x'.repeat(40)}@demo.test`;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium();
  ({ page, problems } = await newPage(browser, product.url));
});

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

const pageHeight = (p: Page) => p.evaluate(() => document.documentElement.scrollHeight);

const sideways = (p: Page) =>
  p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Screenshots light and dark; nothing scrolls sideways and axe finds nothing serious in either. */
async function lookAt(p: Page, name: string) {
  expect(await sideways(p), name).toBeLessThanOrEqual(0);
  await screenshot(p, `people-${name}`);
  expect(await seriousA11yViolations(p), name).toEqual([]);
  await p.emulateMedia({ colorScheme: 'dark' });
  await screenshot(p, `people-${name}-dark`);
  expect(await seriousA11yViolations(p, { colours: 'only' }), `${name}, dark`).toEqual([]);
  await p.emulateMedia({ colorScheme: 'light' });
}

/** Invites `email` as `role` from the People screen, passing the second-factor check if asked. */
async function invite(email: string, role: 'admin' | 'finance'): Promise<string> {
  await page.getByRole('button', { name: 'Invite someone' }).click();
  const dialog = page.getByRole('dialog', { name: 'Invite someone' });
  await dialog.getByLabel('Email').fill(email);
  await dialog.getByLabel('Role').selectOption(role);
  await dialog.getByRole('button', { name: 'Invite' }).click();
  const shown = page.getByRole('dialog', { name: `${email} is invited` });
  const code = dialog.getByLabel('Second-factor code');
  await Promise.race([shown.waitFor(), code.waitFor()]);
  if (await code.isVisible()) {
    await code.fill(await freshTotp(DEMO_ADMIN_TOTP_SECRET));
    await shown.waitFor();
  }
  const link = await shown.getByLabel('Invitation link').inputValue();
  await shown.getByRole('button', { name: 'Done' }).click();
  return link;
}

describe('people at 1280×800 and 390×844', () => {
  it('an admin signs in and opens People from the navigation', async () => {
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill('admin@demo.test');
    await page.getByLabel('Second-factor code').waitFor();
    await signIn(page, 'admin@demo.test', DEMO_PASSWORD, () => freshTotp(DEMO_ADMIN_TOTP_SECRET));
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'People' })
      .click();
    await page.getByRole('table', { name: 'People who may sign in' }).waitFor();
    const me = page.getByRole('row', { name: /admin@demo\.test/ });
    await me.getByText('You').waitFor();
  });

  it('invites an admin and someone from finance; each link is shown once', async () => {
    adminLink = await invite('new.admin@demo.test', 'admin');
    expect(adminLink).toMatch(new RegExp(`^${product.url}/join#[A-Za-z0-9_-]{43}$`));
    financeLink = await invite(FINANCE_EMAIL, 'finance');
    const invitations = page.getByRole('table', { name: 'Invitations not yet taken up' });
    await invitations.getByText('new.admin@demo.test').waitFor();
    expect(await page.getByLabel('Invitation link').count()).toBe(0);
  });

  for (const size of SIZES) {
    it(`${size.width}×${size.height}: the people and invitations tables fit or scroll inside their panel`, async () => {
      await page.setViewportSize(size);
      await page.goto('/people');
      await page.getByRole('table', { name: 'Invitations not yet taken up' }).waitFor();
      await lookAt(page, `list-${size.width}`);
      await page.getByRole('button', { name: 'Sessions of admin@demo.test' }).click();
      await page
        .getByRole('dialog', { name: 'Sessions of admin@demo.test' })
        .getByText('This session')
        .waitFor();
      await lookAt(page, `sessions-${size.width}`);
      await page.keyboard.press('Escape');
    });
  }

  it('the invitee opens the link: the token leaves the address bar; an admin enrols an authenticator; the used link says so', async () => {
    const invitee = await newPage(browser, product.url);
    const p = invitee.page;
    for (const size of SIZES) {
      await p.setViewportSize(size);
      await p.goto('about:blank');
      await p.goto(adminLink);
      await p
        .getByRole('heading', {
          level: 1,
          name: 'Join Card Console as new.admin@demo.test (admin)',
        })
        .waitFor();
      expect(p.url()).toBe(`${product.url}/join`);
      await p.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
      await lookAt(p, `join-admin-${size.width}`);
    }
    const key = (await p.locator('.totp-secret').textContent())?.replaceAll(' ', '') ?? '';
    await p.getByLabel('Password', { exact: true }).fill('a new admin password');
    await p.getByLabel('Password again').fill('a new admin password');
    await p.getByLabel('Second-factor code').fill(await freshTotp(key));
    await p.getByRole('button', { name: 'Join' }).click();
    await p.getByRole('heading', { level: 1, name: "You're in" }).waitFor();
    await lookAt(p, 'joined-390');

    // Opened again, as from the message: a new page load, not a change of this page's fragment.
    await p.goto('about:blank');
    await p.goto(adminLink);
    await p
      .getByRole('heading', { level: 1, name: 'This invitation link no longer works' })
      .waitFor();
    await lookAt(p, 'join-used-390');
    await p.setViewportSize(SIZES[0]);
    await lookAt(p, 'join-used-1280');
    expect(invitee.problems).toEqual([]);
    await invitee.context.close();
  });

  it('the new admin is listed as Active, from an invitation', async () => {
    await page.goto('/people');
    const row = page.getByRole('row', { name: /new\.admin@demo\.test/ }).first();
    await row.getByText('Invitation').waitFor();
    await row.getByText('Active').waitFor();
    expect(problems).toEqual([]);
  });

  it('the finance invitee joins and signs in; the admin disables them; their open tab is signed out at its next request', async () => {
    const invitee = await newPage(browser, product.url);
    const p = invitee.page;
    await p.setViewportSize(SIZES[1]);
    await p.goto(financeLink);
    await p
      .getByRole('heading', { level: 1, name: `Join Card Console as ${FINANCE_EMAIL} (finance)` })
      .waitFor();
    // Finance people enrol no authenticator.
    expect(await p.getByLabel('Second-factor code').count()).toBe(0);
    await p.getByLabel('Password', { exact: true }).fill('a finance password');
    await p.getByLabel('Password again').fill('a finance password');
    await p.getByRole('button', { name: 'Join' }).click();
    await p.getByRole('heading', { level: 1, name: "You're in" }).waitFor();
    await p.goto('/sign-in');
    await p.getByLabel('Email').waitFor();
    const signInHeight = await pageHeight(p);
    await signIn(p, FINANCE_EMAIL, 'a finance password');
    await p.goto('/transactions');
    await p.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();

    // The admin sees the session, then disables the person.
    await page.goto('/people');
    const row = page.getByRole('row', { name: new RegExp(FINANCE_EMAIL.replaceAll('.', '\\.')) });
    await expect.poll(() => row.getByRole('cell', { name: '1', exact: true }).count()).toBe(1);
    // The invitee's tab shows Transactions until the person is disabled.
    expect(p.url()).toBe(`${product.url}/transactions`);
    await row.getByRole('button', { name: `Disable ${FINANCE_EMAIL}` }).click();
    const code = page.getByLabel('Second-factor code');
    const disabled = row.getByText('Disabled');
    await Promise.race([disabled.waitFor(), code.waitFor()]);
    if (await code.isVisible()) await code.fill(await freshTotp(DEMO_ADMIN_TOTP_SECRET));
    await disabled.waitFor();

    // The invitee's tab makes its next request: signed out. That request is Refresh, unless the
    // list's own read while the index syncs comes first (Refresh waits, disabled, while a sync
    // runs: on a loaded machine the sync's next read of the list can be the one that finds the
    // session ended, and the screen leaves under it, even before the admin's screen says
    // Disabled). Either way the next request after the disable signs the tab out.
    const signedOut = p.waitForURL(/\/sign-in/);
    const refreshed = p
      .getByRole('button', { name: 'Refresh' })
      .first()
      .click()
      .catch((error: Error) => error);
    await Promise.race([signedOut, refreshed]);
    await signedOut;
    // The address changes as the navigation starts; the Transactions screen (a long list on a
    // phone) stays until the sign-in screen has loaded. Once sign-in shows, the page is only
    // as tall as sign-in itself: nothing of the old screen stays behind.
    await p.getByRole('status').filter({ hasText: 'Your session ended' }).waitFor();
    expect(await pageHeight(p)).toBeLessThanOrEqual(signInHeight + SIZES[1].height);
    await screenshot(p, 'people-disabled-signed-out-390');
    // And they cannot sign in again.
    await p.getByLabel('Email').fill(FINANCE_EMAIL);
    await p.getByLabel('Password').fill('a finance password');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByText('Wrong email, password or code.').waitFor();
    expect(p.url()).toMatch(/\/sign-in/);
    await invitee.context.close();
    expect(problems).toEqual([]);
  });
});
