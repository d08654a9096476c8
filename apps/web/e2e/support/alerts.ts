import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { API_HEADERS } from './browser';

/** Sets a "declined" alert rule named `name` for the signed-in person, on the Alerts screen. */
export async function createDeclinedRule(page: Page, name: string): Promise<void> {
  await page.goto('/alerts');
  await page.getByRole('heading', { name: 'Alert rules', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'New rule' }).click();
  const form = page.locator('form.alert-rule-form');
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Alert me when').selectOption('declined');
  await form.getByRole('button', { name: 'Create rule' }).click();
  await form.waitFor({ state: 'detached' });
  await page.getByRole('region', { name: 'Your rules' }).getByText(name, { exact: true }).waitFor();
}

/** The signed-in person's unread alerts, as the bell asks for them (it reads no list). */
export async function unreadAlerts(page: Page): Promise<number> {
  const response = await page.request.get('/api/alerts/inbox/unread-count', {
    headers: API_HEADERS,
  });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { unread: number }).unread;
}
