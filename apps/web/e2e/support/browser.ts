import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';

const artifacts = resolve(dirname(fileURLToPath(import.meta.url)), '../../.e2e-artifacts');

/**
 * Headers for the tests' own API calls (`page.request`): the BFF's CSRF header, and a connection
 * of their own each, closed after the answer. Reused, an idle connection can be closed by the
 * server's keep-alive timeout (5 s) just as the next call goes out on it (ECONNRESET); a browser
 * retries such a request by itself, Playwright's request context does not.
 */
export const API_HEADERS = { 'X-CSRF': '1', Connection: 'close' } as const;

/** Debian's `chromium-headless-shell` (scripts/ensure-chromium.mjs says why). */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

/** Headless, as root, with nothing that reaches off this machine. */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: [...chromiumArgs, ...extraArgs] });
}

export async function newPage(
  browser: Browser,
  baseURL: string,
  options: BrowserContextOptions = {},
) {
  const context = await browser.newContext({
    baseURL,
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
    timezoneId: 'America/New_York',
    locale: 'en-US',
    ...options,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  // Anything the strict CSP refused, and any uncaught error, is a defect.
  const problems: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { context, page, problems };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

/**
 * axe-core on what the page shows now: the serious and critical violations, readable. Run in the
 * page itself (legacy mode: same-origin frames only, and the app has no other): the default
 * opens a blank page to finish each run, which doubled a check's cost (2.9 s against 1.4 s on 24
 * screens of a loaded two-core machine, the same results on every one).
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).setLegacyMode().analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(' | ')}`,
    );
}
