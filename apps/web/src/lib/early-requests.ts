/**
 * The first screen's API reads, sent while the app's code is still downloading.
 *
 * This module is also a tiny second entry of index.html, ahead of the app's (vite.config.ts):
 * it runs as soon as the page is parsed and sends what the screen at the address reads first
 * (`sendEarlyRequests`). Without it those requests leave only after ~110 kB of code has loaded
 * and run, one after another (bench/report.md, "The browser"). The app then asks as usual, and
 * `apiRequest` answers a GET from here when the same URL was sent early: each early response
 * is used once, only in the first seconds, and never after a change (a sign-in, an edit), so
 * nothing here outlives the first load.
 */

/** Sent the way `apiRequest` sends a plain GET, so the answer is the one it would get. */
const GET_INIT: RequestInit = {
  headers: { 'X-CSRF': '1', Accept: 'application/json' },
  credentials: 'same-origin',
  cache: 'no-store',
};
/** An early answer the app has not asked for by then is dropped (it asks again). */
const MAX_AGE_MS = 10_000;

const sent = new Map<string, { response: Promise<Response>; at: number }>();
/** Bumped by every drop: a request chained on an earlier answer is not sent after one. */
let generation = 0;

/** `path?query` as the app writes it: the key an early request and the app's own share. */
export function apiUrl(path: string, query?: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

function send(url: string): Promise<Response> {
  const response = fetch(new URL(url, window.location.href), GET_INIT);
  // A failure is the app's to report, when it takes this response; not an unhandled rejection.
  response.catch(() => {});
  sent.set(url, { response, at: performance.now() });
  return response;
}

/**
 * Forgets every early response: a change (signing in or out, an edit) or a 401 may make
 * them stale. `apiRequest` calls this before any request that is not a GET and on any 401.
 */
export function dropEarlyResponses(): void {
  generation++;
  sent.clear();
}

/** The early response for this GET URL, once; undefined when none was sent or it is stale. */
export function takeEarlyResponse(url: string): Promise<Response> | undefined {
  const early = sent.get(url);
  if (!early) return undefined;
  sent.delete(url);
  return performance.now() - early.at <= MAX_AGE_MS ? early.response : undefined;
}

async function firstSubAccountId(subAccounts: Promise<Response>): Promise<string | undefined> {
  const response = await subAccounts;
  if (!response.ok) return undefined;
  const page = (await response.clone().json()) as { items?: { id?: unknown }[] };
  const id = page.items?.[0]?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Sends what the screen at this address reads first, where the URL alone says exactly what
 * that is: the session on every screen (sign-in too: it goes on to the app when there is one);
 * the sub accounts on Sub accounts and Transactions (which names them); and Transactions'
 * first page when no filter but the sub account is set (the landing, and where it redirects
 * to), after the sub accounts when none is given.
 * Signed out, each answers 401 and the app handles that as it would have anyway.
 */
export function sendEarlyRequests(location: { pathname: string; search: string }): void {
  const path = location.pathname.replace(/\/+$/, '') || '/';
  send(apiUrl('/api/session'));
  if (path !== '/sub-accounts' && path !== '/transactions') return;
  const subAccounts = send(apiUrl('/api/sub-accounts'));
  if (path !== '/transactions') return;

  const search = new URLSearchParams(location.search);
  const keys = [...search.keys()];
  if (keys.some((key) => key !== 'subAccountId') || keys.length > 1) return;
  const at = generation;
  const listFor = (subAccountId: string) => {
    if (at === generation) send(apiUrl('/api/transactions', { subAccountId }));
  };
  const given = search.get('subAccountId');
  if (given !== null) {
    // Only an id the router surely reads back as this same string: it parses a value as
    // JSON when it can ("true" is no sub account id, "1e3" reads back as "1000").
    const plain = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(given);
    if (plain && !['true', 'false', 'null'].includes(given)) listFor(given);
    return;
  }
  // Without one the screen opens the first sub account.
  firstSubAccountId(subAccounts)
    .then((id) => (id ? listFor(id) : undefined))
    .catch(() => {});
}

// As the page's first entry, start at once; the app's own import then finds this module
// already run. Under test there is no page load to start for.
if (import.meta.env.MODE !== 'test') sendEarlyRequests(window.location);
