// Security for every role (issue 48) in real Chromium against the product as `pnpm start` runs it:
// an admin requires a second factor of everyone; the demo finance person, who has none, signs in
// with the password and is taken to Security, enrols a passkey in Chromium's virtual authenticator
// (DevTools protocol WebAuthn domain: a real ceremony, real signatures checked by the BFF), can
// then use the app, and signs in again with the password and that passkey.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_HEADERS,
  launchChromium,
  newPage,
  screenshot,
  seriousA11yViolations,
} from './support/browser';
import { type Running, startProduct } from './support/product';
import {
  DEMO_ADMIN_TOTP_SECRET,
  DEMO_PASSWORD,
  signIn,
  signInWithPasskey,
  signOut,
} from './support/sign-in';
import { freshTotp } from './support/totp';
import { addVirtualAuthenticator } from './support/virtual-authenticator';

const FINANCE = 'finance@demo.test';

let product: Running;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[] = [];
/** The passkeys Chromium's virtual authenticator holds. */
let credentials: Awaited<ReturnType<typeof addVirtualAuthenticator>>['credentials'];

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium();
  ({ context, page, problems } = await newPage(browser, product.url));
  ({ credentials } = await addVirtualAuthenticator(context, page));
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

/** The screen at both sizes, light: a screenshot each, nothing wider than the phone. */
async function bothSizes(name: string) {
  await screenshot(page, `${name}-1280`);
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, `${name}-390`);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  // Each passkey is a card on a phone: its actions in view, not behind a sideways scroll.
  for (const button of await page.getByRole('button', { name: /^Remove / }).all()) {
    const box = await button.boundingBox();
    expect(box && box.x + box.width).toBeLessThanOrEqual(390);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe('security for every role in Chromium', () => {
  it('an admin requires a second factor for everyone on Security', async () => {
    await page.goto('/');
    await page.waitForURL(/\/sign-in/);
    await signIn(page, 'admin@demo.test', DEMO_PASSWORD, () => freshTotp(DEMO_ADMIN_TOTP_SECRET));
    await page.goto('/security');
    await page.getByRole('heading', { name: 'For everyone' }).waitFor();
    await page.getByRole('button', { name: 'Require a second factor for everyone' }).click();
    const dialog = page.getByRole('dialog', { name: 'Require a second factor for everyone' });
    await dialog.getByRole('button', { name: 'Require for everyone' }).click();
    await page.getByText('A second factor is required for everyone.').waitFor();
    const audit = await page.request.get('/api/audit?action=securityPolicy.update', {
      headers: API_HEADERS,
    });
    expect((await audit.json()).items[0]).toMatchObject({
      actor: 'admin@demo.test',
      outcome: 'success',
      after: { secondFactorFor: 'everyone' },
    });
    await signOut(page);
  });

  it('finance, with no second factor, is taken to Security and enrols a passkey there', async () => {
    await signIn(page, FINANCE, DEMO_PASSWORD);
    await page.waitForURL(/\/security$/);
    await page.getByText('Your organisation requires a second factor.').waitFor();
    // Nothing else is open to them yet, and asking says why.
    const held = await page.request.get('/api/cards', { headers: API_HEADERS });
    expect(held.status()).toBe(403);
    expect((await held.json()).code).toBe('second_factor_enrolment_required');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await bothSizes('security-every-role-finance-held');

    await page.getByLabel('Name for the new passkey').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('table', { name: 'Your passkeys' }).getByText('Work laptop').waitFor();
    expect(await credentials()).toHaveLength(1);
    // The app opens: the menu is back and the held notice gone.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Cards' })
      .waitFor();
    expect(await page.getByText('Your organisation requires a second factor.').count()).toBe(0);
    expect((await page.request.get('/api/cards', { headers: API_HEADERS })).status()).toBe(200);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await bothSizes('security-every-role-finance');
    expect(problems).toEqual([]);
  });

  it('finance signs in with the password and that passkey; no Denied rows from Security', async () => {
    await signOut(page);
    await signInWithPasskey(page, FINANCE, DEMO_PASSWORD);
    const me = await page.request.get('/api/session', { headers: API_HEADERS });
    const session = await me.json();
    expect(session).toMatchObject({ email: FINANCE, role: 'finance', stepUpMethods: ['passkey'] });
    expect(session.secondFactorEnrolmentRequired).toBeUndefined();
    await page.goto('/security');
    await page.getByRole('table', { name: 'Your passkeys' }).getByText('Work laptop').waitFor();
    await signOut(page);

    // The demo admin's address brings up the code field by itself: the form is ready for it.
    await page.getByLabel('Email').fill('admin@demo.test');
    await page.getByLabel('Second-factor code').waitFor();
    await signIn(page, 'admin@demo.test', DEMO_PASSWORD, () => freshTotp(DEMO_ADMIN_TOTP_SECRET));
    const signIns = await page.request.get('/api/audit?action=session.signIn', {
      headers: API_HEADERS,
    });
    expect(
      (await signIns.json()).items.find((r: { actor: string }) => r.actor === FINANCE),
    ).toMatchObject({ outcome: 'success', method: 'password+passkey' });
    const denied = await page.request.get('/api/audit?action=access.denied', {
      headers: API_HEADERS,
    });
    expect((await denied.json()).items).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('finance sets up an authenticator app on Security, then signs in with a code from it', async () => {
    await signOut(page);
    await page.getByLabel('Email').fill(FINANCE);
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.goto('/security');
    // Signed in with the passkey a moment ago: that is the check, none is asked again.
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const form = page.getByRole('form', { name: 'Set up an authenticator app' });
    const key = (await form.getByTestId('totp-secret').textContent()) ?? '';
    expect(key).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
    await form.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    expect(
      await form.getByRole('link', { name: 'Open in authenticator app' }).getAttribute('href'),
    ).toMatch(/^otpauth:\/\/totp\//);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, 'security-every-role-totp-setup-1280');
    const secret = key.replace(/\s/g, '');
    await form.getByLabel('6-digit code from the app').fill(await freshTotp(secret));
    await form.getByRole('button', { name: 'Confirm code' }).click();
    await page.getByText(/^Authenticator app set up/).waitFor();
    expect(
      await page
        .getByRole('switch', { name: 'Accept authenticator-app codes' })
        .getAttribute('aria-checked'),
    ).toBe('true');

    await signOut(page);
    await signIn(page, FINANCE, DEMO_PASSWORD, () => freshTotp(secret));
    const me = await page.request.get('/api/session', { headers: API_HEADERS });
    expect((await me.json()).stepUpMethods).toEqual(['passkey', 'totp']);
    expect(problems).toEqual([]);
  });
});
