import type { Locator, Page } from 'playwright-core';

/**
 * The main navigation, ready to click: on a phone its links wait behind the top bar's Menu
 * button, which is opened first; on a wider window they are in view already.
 */
export async function mainNav(page: Page): Promise<Locator> {
  const menu = page.getByRole('button', { name: 'Menu' });
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) !== 'true') {
    await menu.click();
  }
  return page.getByRole('navigation', { name: 'Main' });
}
