// Money read as a finance person reads it (#43), in real Chromium against the product as
// `pnpm start` runs it (demo mode), at 1280×800 and 390×844: last month's accounting files net
// to the posted total the Transactions screen shows for last month, row for row; the
// Overview's card spend for last month is the list's; and the accounting category set on a row
// in its notes is on that row's entry in the files that carry categories. Every figure is read
// off the screen or out of the downloaded file, never from the BFF's answers; every screen is
// saved as a screenshot and checked with axe.

import { readFileSync } from 'node:fs';
import { instantToIsoDay } from '@card-console/shared/dates';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodDays } from '../src/lib/periods';
import { launchChromium, newPage, screenshot, seriousA11yViolations } from './support/browser';
import { mainNav } from './support/nav';
import { type Running, startProduct } from './support/product';
import { DEMO_ADMIN_TOTP_SECRET, DEMO_PASSWORD, parseCsv, signIn } from './support/sign-in';
import { freshTotp } from './support/totp';

const ZONE = 'America/New_York';
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

/** Cents of a figure as the screen writes it: "$1,234.56", "-$12.00", "+$3.00". */
function screenCents(text: string): number {
  const m = /^([-+]?)\$([\d,]+)\.(\d\d)$/.exec(text.trim());
  if (!m) throw new Error(`not an amount on screen: "${text}"`);
  const cents = Number((m[2] as string).replaceAll(',', '')) * 100 + Number(m[3]);
  return m[1] === '-' ? -cents : cents;
}

/** Cents of an amount as a file writes it: "1234.56", "-12.00". */
function fileCents(text: string): number {
  const m = /^(-?)(\d+)\.(\d\d)$/.exec(text);
  if (!m) throw new Error(`not an amount in the file: "${text}"`);
  const cents = Number(m[2]) * 100 + Number(m[3]);
  return m[1] === '-' ? -cents : cents;
}

/** "$1,234.56" as the screen writes a sum, to say in a failure what the file nets to. */
const dollars = (cents: number) =>
  `${cents < 0 ? '-' : ''}$${(Math.abs(cents) / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;

const sizes = [
  [1280, 800],
  [390, 844],
] as const;

/** What each run read off the screens, printed for the report. */
const read: Record<string, unknown> = {};

describe.each(sizes)('at %i×%i, money read off the screens reconciles', (width, height) => {
  let page: Page;
  let problems: string[];
  const code = `97${width}`;
  const name = `Money check ${width}`;
  /** Last month's days in the person's zone. */
  const days = periodDays('last-month', instantToIsoDay(Date.now(), ZONE));
  /** The Transactions screen's figures for last month. */
  let listPosted = '';
  let listCardSpend = '';

  beforeAll(async () => {
    ({ page, problems } = await newPage(browser, product.url, {
      timezoneId: ZONE,
      viewport: { width, height },
    }));
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill('admin@demo.test');
    await page.getByLabel('Second-factor code').waitFor();
    await signIn(page, 'admin@demo.test', DEMO_PASSWORD, () => freshTotp(DEMO_ADMIN_TOTP_SECRET));
  }, 120_000);
  afterAll(async () => {
    console.log(`money.e2e at ${width}×${height}:`, JSON.stringify(read[width]));
    await page?.context().close();
  });

  async function expectAccessible(step: string) {
    await screenshot(page, `money-${step}-${width}`);
    expect(await seriousA11yViolations(page), step).toEqual([]);
    expect(problems, step).toEqual([]);
  }

  const figures = () => page.locator('p.summary-figures');
  /** A figure of the list's summary line, by the word before it. */
  const summaryFigure = (label: string) =>
    figures()
      .locator('span', { hasText: new RegExp(`^${label} `) })
      .locator('strong.num')
      .first()
      .textContent();
  const listRows = () => page.locator('.transactions-table tbody tr');

  /** Transactions, last month by its preset, the index synced and the summary settled. */
  async function lastMonthsTransactions() {
    const nav = await mainNav(page);
    await nav.getByRole('link', { name: 'Transactions', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    await page.getByText(/^Updated /).waitFor({ timeout: 60_000 });
    await page.getByLabel('Period').selectOption('last-month');
    await page.waitForURL((url) => url.searchParams.get('period') === 'last-month');
    await page.getByText(/^Updated /).waitFor({ timeout: 60_000 });
    await expect.poll(() => figures().getAttribute('aria-busy')).toBeNull();
    await listRows().first().waitFor();
  }

  /** The accounting files' panel opened, and the posted total it shows: "$X", N rows. */
  async function openFormats(): Promise<{ posted: string; rows: number }> {
    const more = page.locator('details.export-more');
    if ((await more.getAttribute('open')) === null) {
      await page.getByText('More formats', { exact: true }).click();
    }
    const line = page.locator('.export-posted p').first();
    await line.waitFor();
    // The panel is whole on the screen, wherever the title row put its button.
    const box = await page.locator('.export-more-panel').boundingBox();
    const width = page.viewportSize()?.width ?? 0;
    expect(box && box.x >= 0 && box.x + box.width <= width, JSON.stringify({ box, width })).toBe(
      true,
    );
    const m = /^Posted: (-?\$[\d,]+\.\d\d) in ([\d,]+) rows?$/.exec(
      ((await line.textContent()) ?? '').trim(),
    );
    if (!m) throw new Error(`the posted line reads "${await line.textContent()}"`);
    return { posted: m[1] as string, rows: Number((m[2] as string).replaceAll(',', '')) };
  }

  async function download(label: string): Promise<string[][]> {
    const file = page.waitForEvent('download', { timeout: 60_000 });
    await page.getByRole('button', { name: label }).click();
    const text = readFileSync(await (await file).path(), 'utf8');
    return parseCsv(text).filter((r) => r.length > 1);
  }

  /**
   * A format's file whole: the one file, or, past its importer's limit, every part in turn
   * ("…, part 1 of 2 (rows 1–999)"), each within `perFile` rows; the header once.
   */
  async function downloadAll(label: string, perFile: number): Promise<string[][]> {
    const parts = await page
      .getByRole('button', {
        name: new RegExp(`^${label.replace(/[()]/g, '\\$&')}(, part \\d+ of \\d+ .*)?$`),
      })
      .all();
    const names = await Promise.all(
      parts.map((b) =>
        b.getAttribute('aria-label').then(async (a) => a ?? (await b.textContent()) ?? ''),
      ),
    );
    let header: string[] | undefined;
    const rows: string[][] = [];
    for (const name of names) {
      const [first, ...lines] = await download(name.trim());
      expect(lines.length, name).toBeLessThanOrEqual(perFile);
      header ??= first;
      rows.push(...lines);
    }
    return header ? [header, ...rows] : [];
  }

  it("last month's QuickBooks bank file and Xero file hold the posted rows the Transactions screen counts, and net to its posted total", async () => {
    await lastMonthsTransactions();
    listPosted = (await summaryFigure('Posted')) ?? '';
    listCardSpend = (await summaryFigure('Card spend')) ?? '';
    expect(listPosted).toMatch(/^-?\$[\d,]+\.\d\d$/);
    expect(listCardSpend).toMatch(/^-?\$[\d,]+\.\d\d$/);
    await expectAccessible('transactions-last-month');

    // Beside the files, the same posted total as the summary's, with its row count.
    const beside = await openFormats();
    expect(beside.posted).toBe(listPosted);
    expect(beside.rows).toBeGreaterThan(0);
    await expectAccessible('export-formats');

    const [bankHeader, ...bank] = await downloadAll('QuickBooks bank CSV', 999);
    expect(bankHeader).toEqual(['Date', 'Description', 'Amount']);
    const [xeroHeader, ...xero] = await downloadAll('Xero CSV (precoded)', 1_000);
    expect(xeroHeader?.slice(0, 2)).toEqual(['*Date', '*Amount']);
    const bankCents = bank.reduce((n, r) => n + fileCents(r[2] ?? ''), 0);
    const xeroCents = xero.reduce((n, r) => n + fileCents(r[1] ?? ''), 0);
    read[width] = {
      days,
      listPosted,
      listCardSpend,
      exportPosted: beside,
      quickbooksBank: { rows: bank.length, sum: dollars(bankCents) },
      xero: { rows: xero.length, sum: dollars(xeroCents) },
    };
    // Each row of last month in the person's zone: QuickBooks writes MM/DD/YYYY, Xero DD/MM/YYYY.
    const [fy, fm] = days.from.split('-');
    for (const [date] of bank) expect(date).toMatch(new RegExp(`^${fm}/\\d\\d/${fy}$`));
    for (const [date] of xero) expect(date).toMatch(new RegExp(`^\\d\\d/${fm}/${fy}$`));
    expect(bank).toHaveLength(beside.rows);
    expect(xero).toHaveLength(beside.rows);
    expect(dollars(bankCents)).toBe(listPosted);
    expect(dollars(xeroCents)).toBe(listPosted);
    expect(bankCents).toBe(screenCents(listPosted));
    expect(xeroCents).toBe(screenCents(listPosted));
    // One line per transaction: Xero's reference is its id, none twice.
    expect(new Set(xero.map((r) => r[4])).size).toBe(xero.length);
  });

  it("the Overview's card spend for last month is the Transactions list's card spend for last month", async () => {
    const nav = await mainNav(page);
    await nav.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor({ timeout: 60_000 });
    await page.getByLabel('Period', { exact: true }).selectOption('custom');
    await page.waitForURL((url) => url.searchParams.get('period') === 'custom');
    // From first: a From of last month with today's To is still a period the Overview takes.
    await page.getByLabel('From', { exact: true }).fill(days.from);
    await page.waitForURL((url) => url.searchParams.get('from') === days.from);
    await page.getByLabel('To', { exact: true }).fill(days.to);
    await page.waitForURL((url) => url.searchParams.get('to') === days.to);
    const shown = new Intl.DateTimeFormat('en-US', {
      month: 'short',
      day: 'numeric',
      year: 'numeric',
      timeZone: 'UTC',
    });
    const [from, to] = [days.from, days.to].map((d) => shown.format(Date.parse(`${d}T00:00:00Z`)));
    await page.getByText(`${from} – ${to}, all sub accounts`).waitFor();
    await page.getByText(/^Reading transactions/).waitFor({ state: 'detached', timeout: 60_000 });
    await expect
      .poll(() => page.locator('.overview-body').getAttribute('aria-busy'), { timeout: 60_000 })
      .toBeNull();
    const tile = page
      .getByRole('region', { name: 'This period' })
      .locator('.overview-tile', { has: page.getByText('Card spend', { exact: true }) })
      .locator('dd.overview-tile-value');
    await expect.poll(() => tile.textContent(), { timeout: 60_000 }).toMatch(/^-?\$[\d,]+\.\d\d$/);
    const overviewCardSpend = (await tile.textContent()) ?? '';
    (read[width] as Record<string, unknown>).overviewCardSpend = overviewCardSpend;
    await expectAccessible('overview-last-month');
    expect(overviewCardSpend).toBe(listCardSpend);
  });

  it('the accounting category set in a posted row’s notes is on its entry in the QuickBooks journal file and its line in the Xero file', async () => {
    // The admin adds the category to the chart of accounts.
    const nav = await mainNav(page);
    await nav.getByRole('link', { name: 'Chart of accounts' }).click();
    await page.getByRole('heading', { level: 1, name: 'Chart of accounts' }).waitFor();
    const form = page.getByRole('form', { name: 'Add category' });
    await form.getByLabel('Code').fill(code);
    await form.getByLabel('Name').fill(name);
    await form.getByRole('button', { name: 'Add category' }).click();
    await page.getByText(`Added ${code} ${name}.`).waitFor();

    // The first settled row of last month, with a card, whose notes are open to change.
    await lastMonthsTransactions();
    const count = await listRows().count();
    let chosen = -1;
    for (let i = 0; i < count && chosen < 0; i++) {
      const row = listRows().nth(i);
      const status = ((await row.locator('td.col-status').textContent()) ?? '').trim();
      const notes = (await row.locator('td.col-notes').textContent()) ?? '';
      const card = (await row.locator('td.col-card').textContent()) ?? '';
      if (status === 'Settled' && !/Reviewed|Accounting category/.test(notes) && card !== '—') {
        chosen = i;
      }
    }
    expect(chosen, 'a settled row of last month with a card').toBeGreaterThanOrEqual(0);
    const row = listRows().nth(chosen);
    const amountText = ((await row.locator('td.col-amount').textContent()) ?? '').trim();
    const debit = amountText.startsWith('Debit');
    const size = Math.abs(screenCents(amountText.replace(/^(Debit|Credit)\s*/, '')));
    const link = row.locator('td.col-description a');
    const id = decodeURIComponent(
      (await link.getAttribute('href'))?.split('/transactions/')[1]?.split('?')[0] ?? '',
    );
    expect(id).not.toBe('');
    await link.click();

    const notes = page.getByRole('region', { name: 'Notes' });
    // Typed ahead by its code, picked with Enter.
    await notes.getByLabel('Accounting category').fill(code);
    await notes.getByRole('option', { name: `${code} ${name}` }).waitFor();
    await notes.getByLabel('Accounting category').press('Enter');
    await notes.getByRole('button', { name: 'Save', exact: true }).click();
    await notes.getByText('Notes saved.').waitFor();
    await expectAccessible('notes-category-set');

    await page.getByRole('link', { name: '← Back to transactions' }).click();
    await page.waitForURL((url) => url.searchParams.get('period') === 'last-month');
    await expect.poll(() => figures().getAttribute('aria-busy')).toBeNull();
    await openFormats();

    const [journalHeader, ...journal] = await download('QuickBooks journal entries');
    expect(journalHeader?.slice(0, 5)).toEqual([
      'JournalNo',
      'JournalDate',
      'AccountName',
      'Debits',
      'Credits',
    ]);
    const entry = journal.filter((l) => l[0] === id);
    expect(entry).toHaveLength(2);
    // Money out debits the category; money in credits it. The other line is the bank's.
    const categoryLine = entry.find((l) => l[2] === name);
    expect(categoryLine, `the entry of ${id} books to ${name}`).toBeDefined();
    expect(fileCents(categoryLine?.[debit ? 3 : 4] ?? '')).toBe(size);
    expect(categoryLine?.[debit ? 4 : 3]).toBe('');
    // Only that row is booked to it.
    expect(journal.filter((l) => l[2] === name)).toHaveLength(1);

    const [xeroHeader, ...xero] = await downloadAll('Xero CSV (precoded)', 1_000);
    expect(xeroHeader?.[6]).toBe('Account code');
    const line = xero.filter((l) => l[4] === id);
    expect(line).toHaveLength(1);
    expect(line[0]?.[6]).toBe(code);
    expect(fileCents(line[0]?.[1] ?? '')).toBe(debit ? -size : size);
    expect(xero.filter((l) => l[6] === code)).toHaveLength(1);
    (read[width] as Record<string, unknown>).category = {
      id,
      amount: amountText,
      journalLine: categoryLine,
      xeroLine: line[0],
    };
    await expectAccessible('export-formats-after-category');
  });
});
