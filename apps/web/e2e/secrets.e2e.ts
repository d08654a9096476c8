import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RevealResponse } from '@card-console/shared/api/cards';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newPage } from './support/browser';
import { initialJavaScript } from './support/initial-js';
import { type Running, startProduct, startSimulator, webDist } from './support/product';
import { DEMO_ADMIN_TOTP_SECRET, signIn } from './support/sign-in';
import { freshTotp } from './support/totp';
import { writeUsersFile } from './support/users-file';

/**
 * The product in production mode against the standalone simulator, with an API key this
 * test chose, so it can look for that exact key everywhere the browser can see. (Demo mode
 * makes its key up in memory, so nobody, this test included, could know what to look for.)
 */
const apiKey = `k_${randomBytes(24).toString('base64url')}`;
const password = randomBytes(12).toString('base64url');
const totpSecret = Array.from(
  randomBytes(32),
  (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[b % 32],
).join('');

interface Seen {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

let sim: Running;
let product: Running;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const seen: Seen[] = [];
const pending: Promise<void>[] = [];

beforeAll(async () => {
  sim = await startSimulator(apiKey);
  const usersFile = writeUsersFile([
    { email: 'finance@corp.test', role: 'finance', password },
    { email: 'admin@corp.test', role: 'admin', password, totpSecret },
  ]);
  product = await startProduct(
    {
      CARD_API_BASE_URL: sim.url,
      CARD_API_KEY: apiKey,
      USERS_FILE: usersFile,
      SESSION_SECRET: randomBytes(32).toString('base64url'),
      TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'info',
    },
    // Its logs are read whole below, the configuration check's included: started as the
    // README's command starts it.
    { readme: true },
  );
  browser = await launchChromium();
  ({ context, page } = await newPage(browser, product.url));
  page.on('response', (response) => {
    pending.push(
      (async () => {
        let body = '';
        try {
          body = (await response.body()).toString('utf8');
        } catch {
          // redirects and aborted requests have no body
        }
        seen.push({
          url: response.url(),
          status: response.status(),
          headers: await response.allHeaders(),
          body,
        });
      })(),
    );
  });
});

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await sim?.stop();
});

/** 15 to 19 digits standing alone that pass the Luhn check: what a card number looks like. */
function luhnNumbers(text: string): string[] {
  return [...text.matchAll(/(?<!\d)\d{15,19}(?!\d)/g)]
    .map((m) => m[0])
    .filter((digits) => {
      let sum = 0;
      for (let i = 0; i < digits.length; i++) {
        let d = Number(digits[digits.length - 1 - i]);
        if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
        sum += d;
      }
      return sum % 10 === 0;
    });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('secrets stay where they belong', () => {
  let revealed: RevealResponse;

  it('an admin uses every screen and reveals a card', async () => {
    await page.goto('/sign-in');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Demo accounts' }).count()).toBe(0);
    await signIn(page, 'admin@corp.test', password, () => freshTotp(totpSecret));
    // The landing screen, once the BFF has read its period: its answers are scanned too.
    await page.waitForURL((url) => url.pathname === '/overview');
    await page.locator('svg.spend-chart a.bar-link').first().waitFor();
    await page.getByText(/^Reading transactions/).waitFor({ state: 'detached', timeout: 60_000 });
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Sub accounts' })
      .click();
    await page.locator('tbody tr').first().waitFor();

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Transactions' })
      .click();
    await page.getByRole('heading', { name: 'Transactions' }).waitFor();
    await page.locator('tbody tr a').first().waitFor();
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.waitForURL(/[?&]pages=2\b/);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    await download;
    await page.locator('tbody tr a').first().click();
    await page.getByText('Reference number').waitFor();

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Cards' })
      .click();
    await page.locator('tbody tr th a').first().click();
    await page.getByText('Spending constraint').waitFor();
    await page.getByRole('button', { name: 'Reveal card details' }).click();
    await page.getByLabel('Reason').fill('Secrets test');
    const answer = page.waitForResponse((r) => /\/api\/cards\/[^/]+\/reveal$/.test(r.url()));
    await page.getByRole('button', { name: 'Reveal', exact: true }).click();
    revealed = (await (await answer).json()) as RevealResponse;
    await page.getByText(/Hidden again in/).waitFor();

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Audit' })
      .click();
    await page.getByRole('heading', { name: 'Audit' }).waitFor();
    await page
      .getByRole('row', { name: /Reveal card/ })
      .first()
      .waitFor();
    await Promise.all(pending);
    expect(seen.length).toBeGreaterThan(15);
  });

  it('no response the browser received holds the API key or an x-api-key header', () => {
    for (const response of seen) {
      const everything = `${JSON.stringify(response.headers)}\n${response.body}`;
      expect(everything.includes(apiKey), response.url).toBe(false);
      expect(Object.keys(response.headers).map((h) => h.toLowerCase())).not.toContain('x-api-key');
    }
  });

  it('a card number appears only in the reveal response', () => {
    expect(luhnNumbers(revealed.pan)).toEqual([revealed.pan]);
    const reveals = seen.filter((r) => /\/api\/cards\/[^/]+\/reveal$/.test(r.url));
    expect(reveals).toHaveLength(1);
    expect(reveals[0]?.headers['cache-control']).toContain('no-store');
    for (const response of seen) {
      if (reveals.includes(response)) continue;
      expect(response.body.includes(revealed.pan), response.url).toBe(false);
      expect(luhnNumbers(response.body), response.url).toEqual([]);
    }
  });

  it('no bundle file holds the key, its variable name or a demo key', () => {
    const files = filesUnder(webDist);
    expect(files.some((f) => f.endsWith('.js'))).toBe(true);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(text.includes(apiKey), file).toBe(false);
      expect(/CARD_API_KEY|x-api-key|demo-key/i.test(text), file).toBe(false);
    }
  });

  it('no bundle file holds the demo admin’s secret; the code display is a chunk production never loads', () => {
    const files = filesUnder(webDist);
    for (const file of files) {
      expect(readFileSync(file).includes(DEMO_ADMIN_TOTP_SECRET), file).toBe(false);
    }
    // The demo admin's code (shown in demo mode only, from GET /api/meta/demo-admin-code) comes
    // with a chunk of its own: built, but neither in the first download nor fetched here.
    const display = 'Fill in the code';
    const chunks = files.filter(
      (f) => f.endsWith('.js') && readFileSync(f, 'utf8').includes(display),
    );
    expect(chunks).toHaveLength(1);
    const initial = initialJavaScript(webDist).files.map((f) => join(webDist, f));
    expect(initial.length).toBeGreaterThan(0);
    for (const file of initial) expect(chunks).not.toContain(file);
    const scripts = seen.filter((r) => new URL(r.url).pathname.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(script.body.includes(display), script.url).toBe(false);
    expect(seen.some((r) => new URL(r.url).pathname === '/api/meta/demo-admin-code')).toBe(false);
  });

  it('no browser storage holds the key or the card number', async () => {
    const storage = await page.evaluate(async () => ({
      local: Object.entries(localStorage),
      session: Object.entries(sessionStorage),
      indexedDb: (await indexedDB.databases()).map((d) => d.name),
      caches: 'caches' in self ? await caches.keys() : [],
    }));
    const cookies = await context.cookies();
    const everything = JSON.stringify({ storage, cookies });
    expect(everything.includes(apiKey)).toBe(false);
    expect(everything.includes(revealed.pan)).toBe(false);
    expect(storage.local).toEqual([]);
    // Only that this tab had a session (so a later 401 is said as "your session ended"):
    // nothing about the person, the card or the reveal.
    expect(storage.session).toEqual([['card-console.signed-in', '1']]);
    expect(storage.indexedDb).toEqual([]);
    for (const cookie of cookies) expect(cookie.httpOnly, cookie.name).toBe(true);
  });

  it('the logs hold neither the key nor the card number', () => {
    const logs = `${product.output()}\n${sim.output()}`;
    expect(logs.includes(apiKey)).toBe(false);
    expect(logs.includes(revealed.pan)).toBe(false);
  });
});
