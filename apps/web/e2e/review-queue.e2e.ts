// The month close as a flow, in real Chromium against the product as `pnpm start` runs it (demo
// mode), at 1280×800 and 390×844: last month's unreviewed → open the first → close three with a
// category, a memo and Save and next, counting every interaction (≤ 3 each: a click, a select
// change, a submitted field or a key press is one) → the three are reviewed with that memo and
// category, and the queue shows the fourth → select all matching → tag and review them all →
// last month has nothing left to review, and its rows carry the tag. Every step is checked
// against the BFF's own answers, with axe, and saved as a screenshot.

import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { Notes } from '@card-console/shared/api/notes';
import type {
  Attention,
  IndexPage,
  IndexTotalsAnswer,
} from '@card-console/shared/api/transaction-index';
import { dayRangeToBounds, instantToIsoDay } from '@card-console/shared/dates';
import { statusesOf } from '@card-console/shared/money-definition';
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodDays } from '../src/lib/periods';
import { apiAnswer } from './support/api';
import { launchChromium, newPage, screenshot, seriousA11yViolations } from './support/browser';
import { type Running, startProduct } from './support/product';
import { DEMO_ADMIN_TOTP_SECRET, DEMO_PASSWORD, signIn } from './support/sign-in';
import { freshTotp } from './support/totp';

const ZONE = 'America/New_York';
const CLOSED = 3;
let product: Running;
let browser: Browser;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

const api = <T>(page: Page, path: string, body?: object) =>
  apiAnswer<T>(page, product.url, path, body);

const sizes = [
  [1280, 800],
  [390, 844],
] as const;

describe.each(sizes)(
  'at %i×%i, the review queue and a change of the whole month',
  (width, height) => {
    let page: Page;
    let problems: string[];
    const code = `97${width}`;
    const tag = `close-${width}`;
    let category: AccountingCategory;
    /** Last month's bounds in the person's zone, as the list asks them. */
    let bounds: { from?: number; to?: number };
    /** Last month's unreviewed, in the list's order, when the queue was opened. */
    let queue: string[] = [];

    beforeAll(async () => {
      ({ page, problems } = await newPage(browser, product.url, {
        timezoneId: ZONE,
        viewport: { width, height },
      }));
      await page.goto('/sign-in');
      await page.getByLabel('Email').fill('admin@demo.test');
      await page.getByLabel('Second-factor code').waitFor();
      await signIn(page, 'admin@demo.test', DEMO_PASSWORD, () => freshTotp(DEMO_ADMIN_TOTP_SECRET));
      category = await api<AccountingCategory>(page, '/api/accounting-categories', {
        code,
        name: `Queue check ${width}`,
      });
      const days = periodDays('last-month', instantToIsoDay(Date.now(), ZONE));
      bounds = dayRangeToBounds(days.from, days.to, ZONE);
    }, 120_000);

    afterAll(async () => {
      // The next size starts from last month unreviewed again: what this one reviewed is reopened.
      if (page) {
        await api(page, '/api/transactions/notes/matching', {
          filter: { tag, from: String(bounds.from), to: String(bounds.to) },
          reviewed: false,
        });
        await page.context().close();
      }
    });

    async function expectAccessible(step: string) {
      await screenshot(page, `review-queue-${step}-${width}`);
      expect(await seriousA11yViolations(page), step).toEqual([]);
      expect(problems, step).toEqual([]);
    }

    const listRows = () => page.locator('.transactions-table tbody tr');
    const bar = () => page.getByRole('region', { name: /selected$/ });
    const idOf = (href: string | null) =>
      decodeURIComponent(href?.split('/transactions/')[1]?.split('?')[0] ?? '');
    /** The "To review" preset's statuses: money that moved or will (docs/money.md). */
    const moved = statusesOf(['posted', 'pending'])
      .map((s) => `status=${s}`)
      .join('&');
    const unreviewedPath = () =>
      `/api/index/transactions?review=unreviewed&from=${bounds.from}&to=${bounds.to}&limit=200`;

    it("opens last month's unreviewed and its first transaction", async () => {
      await page.goto('/transactions');
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
      await page.getByLabel('Period').selectOption('last-month');
      await page.getByText(/^Updated /).waitFor({ timeout: 60_000 });
      const preset = page
        .getByRole('group', { name: 'Needs attention' })
        .getByRole('button', { name: /^To review [\d,]+$/ });
      await preset.click();
      await page.waitForURL((url) => url.searchParams.get('review') === 'unreviewed');
      // The new filter's rows, not the last month's whole list still shown (marked busy) while
      // they load: its first row may be one the other size already reviewed.
      await expect
        .poll(() =>
          page.getByRole('region', { name: 'Transactions table' }).getAttribute('aria-busy'),
        )
        .toBeNull();
      await listRows()
        .nth(CLOSED + 1)
        .waitFor();
      // What the queue was answered, said if its place never shows (a failure names its cause).
      const answers: string[] = [];
      const started = Date.now();
      const heard = (r: Response) => {
        if (new URL(r.url()).pathname === '/api/index/transactions/queue') {
          answers.push(`${r.status()} after ${Date.now() - started} ms`);
        }
      };
      page.on('response', heard);
      await listRows().nth(0).locator('td.col-description a').click();
      const nav = page.getByRole('navigation', { name: 'Review queue' });
      try {
        await nav.getByText(/^1 of [\d,]+$/).waitFor();
      } catch (error) {
        const shown = await nav.textContent().catch(() => 'no queue');
        throw new Error(
          `the queue's place never showed: it read "${shown}"; the queue answered ${answers.join(', ') || 'nothing'} (${page.url()})`,
          { cause: error },
        );
      } finally {
        page.off('response', heard);
      }
      // The queue as the BFF has it: the list's filter, in its order; the first is the one open.
      const list = await api<IndexPage>(page, `${unreviewedPath()}&${moved}`);
      queue = list.items.map((t) => t.id);
      expect(queue[0]).toBe(idOf(new URL(page.url()).pathname));
      await expectAccessible('first-in-queue');
    });

    it(`closes ${CLOSED} with a category, a memo and Save and next, ≤ 3 interactions each`, async () => {
      // The notes' saves and the queue's answers, with when they came, to name a failure's cause.
      const heard: string[] = [];
      const started = Date.now();
      page.on('response', (r) => {
        const path = new URL(r.url()).pathname;
        if (path.endsWith('/notes') || path.startsWith('/api/index/transactions/queue')) {
          heard.push(`${r.request().method()} ${path} ${r.status()} at ${Date.now() - started} ms`);
        }
      });
      for (let n = 0; n < CLOSED; n++) {
        const id = queue[n] as string;
        await expect
          .poll(() => new URL(page.url()).pathname)
          .toBe(`/transactions/${encodeURIComponent(id)}`);
        const notes = page.getByRole('region', { name: 'Notes' });
        const field = notes.getByLabel('Accounting category');
        await field.waitFor();
        let interactions = 0;
        // 1: the category, typed ahead by its code and picked with Enter (a submitted field).
        await field.fill(code);
        await notes.getByRole('option', { name: new RegExp(`^${code} `) }).waitFor();
        await field.press('Enter');
        interactions++;
        expect(await field.inputValue()).toBe(`${code} Queue check ${width}`);
        // 2: the memo.
        await notes.getByLabel('Memo').fill(`Closed in the queue (${width}) #${n + 1}`);
        interactions++;
        if (n === 0 && width === 1280) await expectAccessible('closing-one');
        // 3: Save and next (by keyboard alone on the second: Ctrl+Enter in the memo).
        if (n === 1) await notes.getByLabel('Memo').press('Control+Enter');
        else await notes.getByRole('button', { name: 'Save and next' }).click();
        interactions++;
        expect(interactions).toBeLessThanOrEqual(3);
        try {
          await expect
            .poll(() => new URL(page.url()).pathname)
            .not.toBe(`/transactions/${encodeURIComponent(id)}`);
        } catch (error) {
          // A failure names its cause: what the notes and the queue said, and what the BFF answered.
          const said = await page
            .getByRole('region', { name: 'Notes' })
            .textContent()
            .catch(() => 'no notes');
          throw new Error(
            `Save and next did not leave #${n + 1}: the notes read "${said}"; the BFF answered ${heard.join(', ') || 'nothing'}`,
            { cause: error },
          );
        }
      }
      // The queue shows the fourth, first of what is left.
      const fourth = queue[CLOSED] as string;
      await expect
        .poll(() => new URL(page.url()).pathname)
        .toBe(`/transactions/${encodeURIComponent(fourth)}`);
      await page
        .getByRole('navigation', { name: 'Review queue' })
        .getByText(/^1 of [\d,]+$/)
        .waitFor();
      await page.getByRole('region', { name: 'Notes' }).getByLabel('Memo').waitFor();
      await expectAccessible('fourth-in-queue');
      for (const [n, id] of queue.slice(0, CLOSED).entries()) {
        const saved = await api<Notes>(page, `/api/transactions/${encodeURIComponent(id)}/notes`);
        expect(saved).toMatchObject({
          memo: `Closed in the queue (${width}) #${n + 1}`,
          categoryId: category.id,
          review: { state: 'reviewed' },
        });
      }
      const left = await api<IndexPage>(page, unreviewedPath());
      for (const id of queue.slice(0, CLOSED))
        expect(left.items.map((t) => t.id)).not.toContain(id);
    });

    it('selects all matching, tags and reviews them, and last month has nothing left to review', async () => {
      await page.getByRole('link', { name: '← Back to transactions' }).click();
      await page.waitForURL((url) => url.pathname === '/transactions');
      await listRows().nth(0).waitFor();
      const before = await api<Attention>(
        page,
        `/api/index/attention?from=${bounds.from}&to=${bounds.to}`,
      );
      expect(before.unreviewed.count).toBeGreaterThan(100);
      if (width < 640) {
        // A phone's Select mode: a visible button, then every row shown.
        await page.getByRole('button', { name: 'Select', exact: true }).click();
        await page.getByRole('button', { name: /^Select all [\d,]+ shown$/ }).click();
      } else {
        await page.getByRole('checkbox', { name: /^Select all [\d,]+ shown$/ }).check();
      }
      const all = `Select all ${before.unreviewed.count.toLocaleString('en-US')} matching`;
      await bar().getByRole('button', { name: all }).click();
      await bar()
        .getByText(`All ${before.unreviewed.count.toLocaleString('en-US')} matching selected`)
        .waitFor();
      await expectAccessible('all-matching');

      const count = before.unreviewed.count.toLocaleString('en-US');
      await bar().getByLabel('Tags to add').fill(tag);
      await bar().getByLabel('Tags to add').press('Enter');
      const confirm = bar().getByRole('alertdialog');
      await confirm.getByText(`${count} of ${count} transactions will change.`).waitFor();
      await expectAccessible('confirm-count');
      await confirm.getByRole('button', { name: `Change ${count} transactions` }).click();
      await page.getByText(`Tagged ${tag}: ${count} changed.`).waitFor({ timeout: 30_000 });

      // Tagged, they are still unreviewed: all of them again, then reviewed.
      if (width < 640) {
        await page.getByRole('button', { name: 'Select', exact: true }).click();
        await page.getByRole('button', { name: /^Select all [\d,]+ shown$/ }).click();
      } else {
        await page.getByRole('checkbox', { name: /^Select all [\d,]+ shown$/ }).check();
      }
      await bar().getByRole('button', { name: all }).click();
      await bar().getByRole('button', { name: 'Mark reviewed' }).click();
      await confirm.getByText(`${count} of ${count} transactions will change.`).waitFor();
      await confirm.getByRole('button', { name: `Change ${count} transactions` }).click();
      await page.getByText(`Marked reviewed: ${count} changed.`).waitFor({ timeout: 30_000 });
      await page.getByText('No transactions match these filters.', { exact: true }).waitFor();

      const after = await api<Attention>(
        page,
        `/api/index/attention?from=${bounds.from}&to=${bounds.to}`,
      );
      expect(after.unreviewed.count).toBe(0);
      await page
        .getByRole('group', { name: 'Needs attention' })
        .getByRole('button', { name: /^To review 0$/ })
        .waitFor();
      // Every row the change reached carries the tag: the set before, exactly.
      const tagged = await api<IndexTotalsAnswer>(
        page,
        `/api/index/transactions/totals?tag=${tag}&from=${bounds.from}&to=${bounds.to}`,
      );
      expect(tagged.summary.count).toBe(before.unreviewed.count);
      await expectAccessible('month-reviewed');
    });
  },
);
