// Which addresses are pages of the SPA, so only they get index.html: anything else (a scrape
// of /metrics, a mistyped API path, a missing asset) is a 404, not a page that looks healthy.

/**
 * The SPA's pages (apps/web/src/routes), `:id` standing for one path segment. A page added
 * there must be added here: `spa-pages.test.ts` compares this list with the router's own.
 */
export const spaPages = [
  '/',
  '/sign-in',
  '/no-access',
  '/join',
  '/audit',
  '/accounting-categories',
  '/alerts',
  '/people',
  '/security',
  '/overview',
  '/sub-accounts',
  '/cards',
  '/cards/:id',
  '/transactions',
  '/transactions/:id',
  '/receipts',
] as const;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The router matches paths case-insensitively and with or without a trailing slash.
const pagePattern = new RegExp(
  `^(?:${spaPages
    .map((page) =>
      page === '/'
        ? ''
        : page
            .split('/')
            .map((part) => (part === ':id' ? '[^/]+' : escapeRegExp(part)))
            .join('/'),
    )
    .join('|')})/?$`,
  'i',
);

export function isSpaPage(path: string): boolean {
  return pagePattern.test(path);
}

/** Whether an Accept header lists text/html (with a quality above zero); `*\/*` alone does not. */
export function asksForHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'text/html') return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
