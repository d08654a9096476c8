import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from './lib/browser';
import { startTs } from './lib/child';
import { freePort, waitForOk } from './lib/free-port';
import { spread } from './lib/stats';

function recordFirstRows() {
  const w = window as unknown as { firstRowsMs?: number };
  new MutationObserver((_, observer) => {
    if (!document.querySelector('tbody tr.clickable')) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => { w.firstRowsMs = performance.now(); }, 0));
  }).observe(document, { childList: true, subtree: true });
}
const variants = ['A', 'B'];
const servers: { v: string; url: string; stop: () => Promise<void> }[] = [];
for (const v of variants) {
  const port = await freePort();
  const bff = await startTs('apps/bff/src/index.ts', {
    env: { PORT: String(port), DATA_DIR: mkdtempSync(join(tmpdir(), 'cc-ab-')), DEMO_TRANSACTIONS: '30000', WEB_DIST: `/tmp/ccweb-${v}` },
    ready: /./,
  });
  servers.push({ v, url: `http://localhost:${port}`, stop: () => bff.stop() });
}
const browser = await launchChromium();
try {
  const states: Record<string, any> = {};
  for (const s of servers) {
    await waitForOk(`${s.url}/healthz`);
    const context = await browser.newContext();
    const p = await context.newPage();
    await p.goto(`${s.url}/sign-in`);
    await p.getByLabel('Email').fill('finance@demo.test');
    await p.getByLabel('Password').fill('demo-password');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.waitForURL((url) => !url.pathname.startsWith('/sign-in'));
    states[s.v] = await context.storageState();
    await context.close();
  }
  const times: Record<string, number[]> = { A: [], B: [] };
  for (let round = 0; round < 10; round++) {
    for (const s of round % 2 ? [...servers].reverse() : servers) {
      const ctx = await browser.newContext({ storageState: states[s.v], viewport: { width: 1280, height: 800 } });
      const page = await ctx.newPage();
      await page.addInitScript(recordFirstRows);
      await page.goto(`${s.url}/transactions`);
      const h = await page.waitForFunction(() => (window as any).firstRowsMs);
      times[s.v]!.push(Math.round(await h.jsonValue()));
      await ctx.close();
    }
  }
  for (const v of variants) console.log(v, JSON.stringify(spread(times[v]!)), times[v]!.join(' '));
} finally {
  await browser.close();
  for (const s of servers) await s.stop();
}
