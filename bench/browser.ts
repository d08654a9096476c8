// The browser: what a person feels, measured in headless Chromium against the product as
// `pnpm start` runs it (demo mode, built SPA, loopback).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import type { Browser, BrowserContext } from 'playwright-core';
import { chromium } from 'playwright-core';
import { chromiumPath } from './lib/browser';
import { startTs } from './lib/child';
import { freePort, waitForOk } from './lib/free-port';
import { fmt, fmtSpread, spread, verdict } from './lib/stats';
import { ensureWebBuild, initialJavaScript } from './lib/web-build';

const COLD_LOADS = 5;

async function signIn(context: BrowserContext, baseUrl: string): Promise<void> {
  const page = await context.newPage();
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('Email').fill('finance@demo.test');
  await page.getByLabel('Password').fill('demo-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/sign-in'));
  await page.close();
}

async function coldLoads(
  browser: Browser,
  baseUrl: string,
  storageState: Awaited<ReturnType<BrowserContext['storageState']>>,
) {
  const times: number[] = [];
  for (let i = 0; i < COLD_LOADS; i++) {
    // A new context each time: empty HTTP cache, nothing warm but the server.
    const context = await browser.newContext({
      storageState,
      viewport: { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    const started = Date.now();
    await page.goto(`${baseUrl}/transactions`);
    await page.locator('tbody tr.clickable').first().waitFor({ state: 'visible' });
    times.push(Date.now() - started);
    await context.close();
  }
  return spread(times);
}

async function lighthouseScores(baseUrl: string, cookie: string, port: number) {
  const result = await lighthouse(
    `${baseUrl}/transactions`,
    {
      port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility'],
      extraHeaders: { Cookie: cookie },
    },
    desktopConfig,
  );
  const categories = result?.lhr.categories;
  return {
    performance: Math.round((categories?.performance?.score ?? 0) * 100),
    accessibility: Math.round((categories?.accessibility?.score ?? 0) * 100),
  };
}

export async function runBrowserBench(): Promise<{ markdown: string }> {
  ensureWebBuild();
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const bff = await startTs('apps/bff/src/index.ts', {
    env: { PORT: String(port), DATA_DIR: mkdtempSync(join(tmpdir(), 'cc-bench-browser-')) },
    ready: /./,
  });
  const debugPort = await freePort();
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--remote-debugging-port=${debugPort}`,
    ],
  });
  try {
    await waitForOk(`${baseUrl}/healthz`);
    const context = await browser.newContext();
    await signIn(context, baseUrl);
    const storageState = await context.storageState();
    const cookie = storageState.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    await context.close();

    const cold = await coldLoads(browser, baseUrl, storageState);
    const scores = await lighthouseScores(baseUrl, cookie, debugPort);
    const js = initialJavaScript();
    const rendered = await renderedRowsWithManyLoaded(browser, baseUrl, storageState);

    const rows = [
      {
        what: `cold load to first transaction rows visible (ms, ${COLD_LOADS} loads)`,
        value: fmtSpread(cold, 0),
        goal: '< 1,000 (median)',
        met: cold.median < 1000,
      },
      {
        what: 'Lighthouse performance (desktop preset)',
        value: String(scores.performance),
        goal: '≥ 95',
        met: scores.performance >= 95,
      },
      {
        what: 'Lighthouse accessibility',
        value: String(scores.accessibility),
        goal: '100',
        met: scores.accessibility === 100,
      },
      {
        what: `initial JavaScript, gzipped (kB; ${js.files.length} files)`,
        value: fmt(js.gzipBytes / 1000, 1),
        goal: '≤ 110',
        met: js.gzipBytes <= 110_000,
      },
      {
        what: `rendered row elements with ${rendered.loaded.toLocaleString('en-US')} rows loaded`,
        value: String(rendered.rendered),
        goal: '≤ 100',
        met: rendered.loaded >= 10_000 && rendered.rendered <= 100,
      },
    ];
    return {
      markdown: [
        '| measure | measured | goal | |',
        '|---|---|---|---|',
        ...rows.map((r) => `| ${r.what} | ${r.value} | ${r.goal} | ${verdict(r.met)} |`),
        '',
      ].join('\n'),
    };
  } finally {
    await browser.close();
    await bff.stop();
  }
}

/** Loads at least 10,000 transaction rows through the UI's own "Load more", then counts rows in the DOM. */
async function renderedRowsWithManyLoaded(
  browser: Browser,
  baseUrl: string,
  storageState: Awaited<ReturnType<BrowserContext['storageState']>>,
): Promise<{ loaded: number; rendered: number }> {
  const context = await browser.newContext({
    storageState,
    viewport: { width: 1280, height: 800 },
  });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/transactions?view=all`);
  const loadMore = page.getByRole('button', { name: 'Load more' });
  const loadedCount = async () =>
    Number((await page.getByTestId('loaded-count').textContent())?.replace(/\D/g, '') ?? 0);
  await page.locator('tbody tr.clickable').first().waitFor();
  while ((await loadedCount()) < 10_000 && (await loadMore.isVisible())) {
    await loadMore.click();
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  }
  const loaded = await loadedCount();
  const rendered = await page.locator('tbody tr').count();
  await context.close();
  return { loaded, rendered };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log((await runBrowserBench()).markdown);
}
