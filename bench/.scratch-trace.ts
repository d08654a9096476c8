import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from './lib/browser';
import { startTs } from './lib/child';
import { freePort, waitForOk } from './lib/free-port';

const port = await freePort();
const baseUrl = `http://localhost:${port}`;
const bff = await startTs('apps/bff/src/index.ts', {
  env: {
    PORT: String(port),
    DATA_DIR: mkdtempSync(join(tmpdir(), 'cc-trace-')),
    DEMO_TRANSACTIONS: '30000',
    WEB_DIST: '/tmp/ccweb-nomin',
  },
  ready: /./,
});
const browser = await launchChromium();
try {
  await waitForOk(`${baseUrl}/healthz`);
  const context = await browser.newContext();
  const p = await context.newPage();
  await p.goto(`${baseUrl}/sign-in`);
  await p.getByLabel('Email').fill('finance@demo.test');
  await p.getByLabel('Password').fill('demo-password');
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.waitForURL((url) => !url.pathname.startsWith('/sign-in'));
  const state = await context.storageState();
  await context.close();
  for (let i = 0; i < 4; i++) {
    const ctx = await browser.newContext({
      storageState: state,
      viewport: { width: 1280, height: 800 },
    });
    const page = await ctx.newPage();
    await page.addInitScript(() => {
      (window as any).__lt = [];
      new MutationObserver((_, o) => {
        if (document.querySelector('tbody tr.clickable')) {
          (window as any).__rows = Math.round(performance.now());
          o.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
      new PerformanceObserver((l) => {
        for (const e of l.getEntries())
          (window as any).__lt.push([Math.round(e.startTime), Math.round(e.duration)]);
      }).observe({ type: 'longtask', buffered: true });
    });
    const t0 = Date.now();
    const log: string[] = [];
    page.on('request', (r) => log.push(`${Date.now() - t0} start ${r.url().replace(baseUrl, '')}`));
    page.on('requestfinished', (r) =>
      log.push(`${Date.now() - t0} done  ${r.url().replace(baseUrl, '')}`),
    );
    await page.goto(`${baseUrl}/transactions`);
    log.push(`${Date.now() - t0} goto resolved`);
    await page.locator('tbody tr.clickable').first().waitFor({ state: 'visible' });
    log.push(`${Date.now() - t0} rows visible`);
    const lt = await page.evaluate(() => (window as any).__lt);
    const nav = await page.evaluate(() =>
      JSON.stringify(performance.getEntriesByType('navigation')[0]?.toJSON(), [
        'requestStart',
        'responseStart',
        'responseEnd',
        'domInteractive',
        'domContentLoadedEventEnd',
        'loadEventEnd',
      ]),
    );
    const res = await page.evaluate(() => [
      (window as any).__rows,
      performance
        .getEntriesByType('resource')
        .filter((r) => r.name.includes('/api/'))
        .map(
          (r) =>
            `${r.name.split('/api/')[1]?.slice(0, 40)} ${Math.round(r.startTime)}-${Math.round(r.responseEnd)}`,
        ),
    ]);
    console.log('rows appended at', JSON.stringify(res, null, 1));
    const paints = await page.evaluate(() =>
      performance.getEntriesByType('paint').map((p) => [p.name, Math.round(p.startTime)]),
    );
    console.log(
      log.filter((l) => /api|rows|goto|index|transactions-/.test(l)).join('\n'),
      '\nlongtasks',
      JSON.stringify(lt),
      '\nnav',
      nav,
      JSON.stringify(paints),
      '\n---',
    );
    await ctx.close();
  }
} finally {
  await browser.close();
  await bff.stop();
}
