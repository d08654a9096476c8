// The accessibility check the browser flows use (support/browser.ts) still finds what it is for
// with the rules it leaves out: a serious or critical violation in either colour scheme, and in
// the dark scheme's colour-only look a contrast the light scheme passes.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COLOUR_RULES,
  launchChromium,
  NEVER_SERIOUS,
  seriousA11yViolations,
} from './support/browser';

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
});

/** A page whose grey text reads on white and vanishes on the dark scheme's near-black. */
const PAGE = `<!doctype html><html lang="en"><head><title>Check</title><style>
  :root { --fg: #222; --bg: #fff; }
  @media (prefers-color-scheme: dark) { :root { --fg: #1c1c1c; --bg: #111; } }
  body { color: var(--fg); background: var(--bg); }
</style></head><body><main><h1>Check</h1><p>Figures</p>BUTTON</main></body></html>`;

describe('the accessibility check', () => {
  it('leaves out only rules that cannot report serious or critical, and keeps the colour ones', () => {
    expect(NEVER_SERIOUS).toContain('region');
    expect(NEVER_SERIOUS).not.toContain('color-contrast');
    expect(NEVER_SERIOUS).not.toContain('button-name');
    expect(COLOUR_RULES).toEqual(expect.arrayContaining(['color-contrast', 'link-in-text-block']));
  });

  it('finds a button without a name (critical) and passes the page once it has one', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setContent(PAGE.replace('BUTTON', '<button></button>'));
    expect((await seriousA11yViolations(page)).join('\n')).toMatch(/^critical button-name/);
    await page.setContent(PAGE.replace('BUTTON', '<button>Save</button>'));
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it("finds the dark scheme's unreadable text with the colour rules alone", async () => {
    await page.setContent(PAGE.replace('BUTTON', ''));
    await page.emulateMedia({ colorScheme: 'dark' });
    expect((await seriousA11yViolations(page, { colours: 'only' })).join('\n')).toMatch(
      /^serious color-contrast/,
    );
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await seriousA11yViolations(page, { colours: 'only' })).toEqual([]);
  });
});
