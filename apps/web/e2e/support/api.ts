import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { API_HEADERS } from './browser';

/**
 * The BFF's answer to a signed-in page's request, as the SPA sends it (the API's header; a body
 * is posted from the product's own origin), failing the test on anything but a 2xx with the
 * problem the BFF gave.
 */
export async function apiAnswer<T>(
  page: Page,
  origin: string,
  path: string,
  body?: object,
): Promise<T> {
  const response = body
    ? await page.request.post(path, { headers: { ...API_HEADERS, Origin: origin }, data: body })
    : await page.request.get(path, { headers: API_HEADERS });
  expect(response.status(), `${path} ${await response.text()}`).toBeLessThan(300);
  return (await response.json()) as T;
}
