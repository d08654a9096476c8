import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import axe from 'axe-core';
import {
  type Browser,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';

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

/**
 * Whether the flows save what they show, for a person to look at (`E2E_SCREENSHOTS=1`, as
 * `pnpm screenshots` sets it). A run without anyone to look (CI, `pnpm test`) takes none: a
 * full-page PNG cost ~350 ms of the browser's CPU on a loaded machine, and the flows took 277 of
 * them, about 95 s of a run that is bound by its CPU. Nothing a test asserts depends on them.
 */
const screenshotsWanted = process.env.E2E_SCREENSHOTS === '1';

/**
 * What the page (the whole of it) or one part of it shows, saved as `.e2e-artifacts/<name>.png`
 * when screenshots are wanted; `mask` paints over what must never reach the disk.
 */
export async function screenshot(
  what: Page | Locator,
  name: string,
  { mask }: { mask?: Locator[] } = {},
): Promise<void> {
  if (!screenshotsWanted) return;
  mkdirSync(artifacts, { recursive: true });
  const options = { path: join(artifacts, `${name}.png`), ...(mask ? { mask } : {}) };
  if ('goto' in what) await what.screenshot({ ...options, fullPage: true });
  else await what.screenshot(options);
}

/**
 * The rules the checks below leave out, read from the axe-core the page runs. axe gives each of
 * a rule's results the rule's own impact, so a rule rated minor or moderate can never report a
 * serious or critical violation: running it was a third of a check's time ("region" alone was
 * ~1.3 s of each on the Transactions screen) for results that were thrown away.
 */
type AuditRule = { id: string; impact?: string; enabled?: boolean; tags: string[] };
const auditRules: AuditRule[] = (axe as unknown as { _audit: { rules: AuditRule[] } })._audit.rules;
export const NEVER_SERIOUS = auditRules
  .filter((rule) => rule.impact === 'minor' || rule.impact === 'moderate')
  .map((rule) => rule.id);
/** The rules about colour that run by default (contrast, links told apart by colour). */
export const COLOUR_RULES = auditRules
  .filter((rule) => rule.tags.includes('cat.color') && rule.enabled !== false)
  .map((rule) => rule.id);

/**
 * axe-core's source for a check of `page`: all of it where the document has no axe yet, else a
 * script that does nothing. In legacy mode AxeBuilder evaluates the source twice a check, and
 * each evaluation sets axe up again (~190 ms of the browser's CPU on this machine), while the
 * flows check one single-page document many times: a check of a page with a 60-row table took
 * ~870 ms that way and ~380 ms with axe left in place. AxeBuilder still configures axe and runs
 * it with this check's rules, as before; a document the page has moved to gets axe afresh.
 */
async function axeSourceFor(page: Page): Promise<string> {
  return (await page.evaluate(() => 'axe' in globalThis)) ? ';' : axe.source;
}

/**
 * axe-core on what the page shows now: the serious and critical violations, readable. Run in the
 * page itself (legacy mode: same-origin frames only, and the app has no other): the default
 * opens a blank page to finish each run, which doubled a check's cost (2.9 s against 1.4 s on 24
 * screens of a loaded two-core machine, the same results on every one).
 *
 * Only the violations are collected in full (axe's `resultTypes`): by default axe also builds a
 * unique selector and an HTML excerpt for every element each rule passed or could not decide, and
 * the page sends them all back, which was 40% of a check on the Transactions screen (2.5 s against
 * 1.45 s for its ~2,800 elements) for results nothing reads.
 *
 * `colours: 'only'` runs the colour rules alone, for a second look at a screen just checked whole
 * in the other colour scheme: the dark scheme redefines colour properties and nothing else
 * (apps/web/src/styles/base.css), so the page's structure, names and layout, which every other
 * rule reads, are the ones the first look checked.
 */
export async function seriousA11yViolations(
  page: Page,
  { colours = 'all' }: { colours?: 'all' | 'only' } = {},
): Promise<string[]> {
  const builder = new AxeBuilder({ page, axeSource: await axeSourceFor(page) })
    .setLegacyMode()
    .options({ resultTypes: ['violations'] });
  if (colours === 'only') builder.withRules(COLOUR_RULES);
  else builder.disableRules(NEVER_SERIOUS);
  const result = await builder.analyze();
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
