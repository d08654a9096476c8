// Passkeys and single sign-on in real Chromium against the product as `pnpm start` runs it
// (demo mode, with its own OpenID Provider on loopback). The passkey lives in Chromium's
// virtual authenticator (DevTools protocol WebAuthn domain): a real browser ceremony, real
// signatures, checked by the BFF.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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

let product: Running;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[] = [];

/**
 * The card's values shown in place of the masked ones (their shape checked, never printed). If
 * they never are, the failure says what the page showed instead: then no value is on it.
 */
async function revealedOnScreen() {
  const panel = page.locator('[data-testid="reveal-card"].revealed');
  await panel.waitFor().catch(async (error: Error) => {
    const shown = await page
      .locator('body')
      .textContent()
      .catch(() => '(no page)');
    throw new Error(
      `${error.message}\nat ${page.url()} the page showed: ${(shown ?? '').slice(0, 1_500)}\nconsole: ${problems.join(' | ')}`,
    );
  });
  const cvv = (await panel.getByTestId('cvv').textContent()) ?? '';
  expect(/^\d{3,4}$/.test(cvv)).toBe(true);
}
/** The passkeys Chromium's virtual authenticator holds. */
let credentials: Awaited<ReturnType<typeof addVirtualAuthenticator>>['credentials'];
let otherOrigin: http.Server;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium();
  ({ context, page, problems } = await newPage(browser, product.url));
  ({ credentials } = await addVirtualAuthenticator(context, page));
  // Another origin with the same host name (so the same RP id): a page there can ask the
  // authenticator to sign, but the BFF must refuse what it signs.
  otherOrigin = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>other</title>');
  });
  await new Promise<void>((resolve) => otherOrigin.listen(0, '127.0.0.1', resolve));
}, 300_000);

afterAll(async () => {
  otherOrigin?.close();
  await browser?.close();
  await product?.stop();
});

describe('passkeys and single sign-on in Chromium', () => {
  it('an admin enrols a passkey on Security after proving a factor', async () => {
    await page.goto('/');
    await page.waitForURL(/\/sign-in/);
    await signIn(page, 'admin@demo.test', DEMO_PASSWORD, () => freshTotp(DEMO_ADMIN_TOTP_SECRET));
    await page.goto('/security');
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    await page.getByLabel('Name for the new passkey').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('table', { name: 'Your passkeys' }).getByText('Work laptop').waitFor();
    expect(await credentials()).toHaveLength(1);
    await screenshot(page, 'security-1280');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'security-390');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(problems).toEqual([]);
  });

  it('signs in with the password and the passkey', async () => {
    await signOut(page);
    await signInWithPasskey(page, 'admin@demo.test', DEMO_PASSWORD);
    const me = await page.request.get('/api/session', { headers: API_HEADERS });
    expect(await me.json()).toMatchObject({ email: 'admin@demo.test', method: 'password' });
    const audit = await page.request.get('/api/audit?action=session.signIn', {
      headers: API_HEADERS,
    });
    expect((await audit.json()).items[0]).toMatchObject({
      outcome: 'success',
      method: 'password+passkey',
    });
  });

  it('signs in through the demo identity provider, then reveals a card with the passkey', async () => {
    await signOut(page);
    // A fresh load of the sign-in page, as someone arriving from a bookmark.
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    // The provider's own page, on its own loopback origin.
    await page.waitForURL((url) => url.port !== String(product.port));
    await screenshot(page, 'demo-identity-provider');
    await page.getByLabel('Email').fill('admin@demo.test');
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: /sign in/i }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const me = await page.request.get('/api/session', { headers: API_HEADERS });
    const session = await me.json();
    expect(session).toMatchObject({ method: 'sso', role: 'admin' });
    expect(session.stepUpUntil).toBeUndefined();
    expect(session.stepUpMethods).toEqual(['passkey', 'provider']);

    const cards = await page.request.get('/api/cards?status=active', {
      headers: API_HEADERS,
    });
    const card = (await cards.json()).items[0];
    await page.goto(`/cards/${card.id}`);
    await page.getByRole('button', { name: 'Reveal card details' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reveal card details' });
    await dialog.getByLabel('Reason').fill('card holder on the phone');
    const answer = page.waitForResponse((r) => r.url().endsWith(`/api/cards/${card.id}/reveal`));
    await dialog.getByRole('button', { name: 'Use a passkey' }).click();
    const response = await answer;
    expect(response.status()).toBe(200);
    await revealedOnScreen();
    expect(problems).toEqual([]);
  });

  it('refuses what the passkey signs for another origin', async () => {
    const options = await page.request.post('/api/session/step-up-options', {
      headers: { ...API_HEADERS, Origin: product.url },
      data: {},
    });
    expect(options.status()).toBe(200);
    const optionsJson = await options.json();
    const port = (otherOrigin.address() as AddressInfo).port;
    await page.goto(`http://localhost:${port}/`);
    const assertion = await page.evaluate(async (json) => {
      const toBytes = (s: string) =>
        Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const toText = (b: ArrayBuffer) =>
        btoa(String.fromCharCode(...new Uint8Array(b)))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '');
      const credential = (await navigator.credentials.get({
        publicKey: {
          challenge: toBytes(json.challenge),
          rpId: json.rpId,
          allowCredentials: json.allowCredentials.map((c: { id: string }) => ({
            type: 'public-key',
            id: toBytes(c.id),
          })),
          userVerification: 'required',
        },
      })) as PublicKeyCredential;
      const response = credential.response as AuthenticatorAssertionResponse;
      return {
        id: credential.id,
        rawId: toText(credential.rawId),
        type: 'public-key',
        response: {
          clientDataJSON: toText(response.clientDataJSON),
          authenticatorData: toText(response.authenticatorData),
          signature: toText(response.signature),
        },
        clientExtensionResults: {},
      };
    }, optionsJson);
    expect(
      JSON.parse(atob(assertion.response.clientDataJSON.replace(/-/g, '+').replace(/_/g, '/')))
        .origin,
    ).toBe(`http://localhost:${port}`);
    const refused = await page.request.post(`${product.url}/api/session/step-up`, {
      headers: { ...API_HEADERS, Origin: product.url },
      data: { passkey: assertion },
    });
    expect(refused.status()).toBe(401);
    expect((await refused.json()).code).toBe('invalid_passkey');
  });
  it('confirming at the identity provider before a reveal keeps the reason typed', async () => {
    // A fresh single sign-on (not a step-up): the reveal asks for a factor. Cookies cleared:
    // no console session, no provider session.
    await page.context().clearCookies();
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.waitForURL((url) => url.port !== String(product.port));
    await page.getByLabel('Email').fill('admin@demo.test');
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: /sign in/i }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const cards = await page.request.get('/api/cards?status=active', {
      headers: API_HEADERS,
    });
    const card = (await cards.json()).items[1];
    await page.goto(`/cards/${card.id}`);
    await page.getByRole('button', { name: 'Reveal card details' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reveal card details' });
    await dialog.getByLabel('Reason').fill('vendor portal renewal for the team');
    await dialog.getByRole('link', { name: 'Confirm at demo SSO' }).click();
    // The provider asks again (max_age=0), then sends the person back to this card.
    await page.waitForURL((url) => url.port !== String(product.port));
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    if (await page.getByLabel('Email').isEditable()) {
      await page.getByLabel('Email').fill('admin@demo.test');
    }
    await page.getByRole('button', { name: /sign in/i }).click();
    await page.waitForURL((url) => url.pathname === `/cards/${card.id}`);
    const reopened = page.getByRole('dialog', { name: 'Reveal card details' });
    await expect
      .poll(() => reopened.getByLabel('Reason').inputValue())
      .toBe('vendor portal renewal for the team');
    await screenshot(page, 'reveal-after-provider-1280');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'reveal-after-provider-390');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await page.setViewportSize({ width: 1280, height: 800 });
    const answer = page.waitForResponse((r) => r.url().endsWith(`/api/cards/${card.id}/reveal`));
    await reopened.getByRole('button', { name: 'Reveal', exact: true }).click();
    expect((await answer).status()).toBe(200);
    await revealedOnScreen();
    const audit = await page.request.get('/api/audit?action=card.reveal', {
      headers: API_HEADERS,
    });
    expect((await audit.json()).items[0]).toMatchObject({
      reason: 'vendor portal renewal for the team',
      outcome: 'success',
    });
    expect(problems).toEqual([]);
  });
});
