import type { AccountingCategoryList } from '@card-console/shared/api/accounting-categories';
import type { CardOwnerList } from '@card-console/shared/api/card-owners';
import type { ClosePolicy } from '@card-console/shared/api/close-policy';
import {
  apiErrorBodySchema,
  type ExtendedProblemCode,
  type ProblemCode,
  type ProblemExtensions,
  problemTitles,
  problemType,
} from '@card-console/shared/api/error';
import type { MetaResponse } from '@card-console/shared/api/meta';
import type { Receipt } from '@card-console/shared/api/notes';
import type { Attention, CardsMoney, IndexCard } from '@card-console/shared/api/transaction-index';
import { type EndpointName, routes } from '@card-console/shared/contract/routes';
import {
  HttpResponse,
  type HttpResponseResolver,
  http,
  type PathParams,
  type RequestHandlerOptions,
} from 'msw';
import { setupServer } from 'msw/node';
import { transactionNotes } from './fixtures';

type ReceiptList = { items: Receipt[] };

/** MSW's handler maker of each method. */
const methods = { GET: 'get', POST: 'post', PUT: 'put', PATCH: 'patch', DELETE: 'delete' } as const;

/**
 * One MSW server for the web tests; each test adds the handlers it needs. The cards list asks
 * the index for its cards' money on every screen that shows it: by default the index knows
 * nothing of them yet (no sub account, no spend), which a test overrides to see money. A
 * transaction's detail asks for its notes, its receipts and the chart of accounts: by default
 * it has none and the chart is empty, as are its merchant rules; the chart's close policy is
 * the default one; opened from a filtered list, it is that list's only row; its merchant text
 * names a merchant of that one text. The navigation asks what the month close still needs: nothing, by default;
 * the alerts bell, how many are unread: none. A card's detail asks the index for its latest
 * transactions and the sub accounts for their names: none, by default (a card no sync has
 * read yet). The Transactions screen asks how many receipts of the inbox need the person: the
 * inbox is empty, by default. The Cards and Transactions filters ask for the cards' owners and
 * teams: none, by default.
 */
export const server = setupServer(
  serve('alerts.unreadCount', () => HttpResponse.json({ unread: 0 })),
  serve('inbox.list', () =>
    HttpResponse.json({ items: [], counts: { reading: 0, suggested: 0, waiting: 0, attached: 0 } }),
  ),
  serve('index.attention', () => HttpResponse.json(quietAttention())),
  serve('index.totals', () => HttpResponse.json(noTotals())),
  // A transaction opened from a filtered list: alone in it, unless a test says otherwise.
  serve('index.queue', () =>
    HttpResponse.json({
      count: 1,
      position: 1,
      freshness: { syncing: false, days: 0, daysDone: 0 },
    }),
  ),
  serve('index.queueNext', () => HttpResponse.json({})),
  // A transaction's merchant text names a merchant of that one text, by default.
  serve('index.merchant', ({ request }) => {
    const descriptor = new URL(request.url).searchParams.get('descriptor') ?? '';
    return HttpResponse.json({
      key: descriptor.toLowerCase(),
      name: descriptor,
      descriptors: [descriptor],
      more: 0,
      freshness: { syncing: false, days: 0, daysDone: 0 },
    });
  }),
  serve('merchantRules.list', () => HttpResponse.json({ items: [] })),
  serve('notes.get', ({ params }) =>
    HttpResponse.json(transactionNotes({ transactionId: String(params.id) })),
  ),
  serve('receipts.list', () => HttpResponse.json({ items: [] } satisfies ReceiptList)),
  serve('accountingCategories.list', () =>
    HttpResponse.json({ items: [] } satisfies AccountingCategoryList),
  ),
  serve('closePolicy.get', () =>
    HttpResponse.json({
      receiptFromCents: 7_500,
      memoCategoryIds: [],
      version: 0,
    } satisfies ClosePolicy),
  ),
  serve('index.card', () =>
    HttpResponse.json({
      subAccountIds: [],
      recent: [],
      freshness: { syncing: false, days: 0, daysDone: 0 },
    } satisfies IndexCard),
  ),
  serve('subAccounts.list', () => HttpResponse.json({ items: [] })),
  // No card has an owner or a team yet, by default (`serveCardOwners` gives some).
  serve('cards.owners', () => HttpResponse.json({ owners: [], teams: [] } satisfies CardOwnerList)),
  serve('index.cardMoney', ({ request }) =>
    HttpResponse.json({
      cards: new URL(request.url).searchParams
        .getAll('cardId')
        .map((cardId) => ({ cardId, subAccountIds: [] })),
      freshness: { syncing: false, days: 0, daysDone: 0 },
    } satisfies CardsMoney),
  ),
);

/**
 * A fake of one endpoint of the contract: its method and path come from the contract, with the
 * path's `:name` parameters as MSW matches them. What the fake answers is parsed by the client
 * with the endpoint's response schema, as the BFF's answer is, so a fake cannot answer what
 * the BFF could not.
 */
export function serve<N extends EndpointName>(
  name: N,
  ...args:
    | [resolver: Resolver, options?: RequestHandlerOptions]
    | [only: Record<string, string>, resolver: Resolver, options?: RequestHandlerOptions]
) {
  const route = routes[name];
  // `only`: the fake of one resource (`{ id: 'r1' }`), not of every one.
  const [only, resolver, options]: [
    Record<string, string> | undefined,
    Resolver,
    RequestHandlerOptions | undefined,
  ] =
    typeof args[0] === 'function'
      ? [undefined, args[0], args[1] as RequestHandlerOptions | undefined]
      : [args[0], args[1] as Resolver, args[2]];
  const path = only ? pathOf(name, only) : `/api${route.path}`;
  return http[methods[route.method]](path, resolver, options);
}

type Resolver = HttpResponseResolver<PathParams<string>>;

/** Where a contract endpoint is, its `:name` parameters filled in: to find the requests sent. */
export function pathOf(name: EndpointName, params: Record<string, string> = {}): string {
  return `/api${routes[name].path.replace(/:(\w+)/g, (_, key: string) => (params[key] === undefined ? `:${key}` : encodeURIComponent(params[key])))}`;
}

/** The figures of an empty set, which a test that shows figures overrides (`serveIndex`). */
export function noTotals() {
  const zero = { count: 0, cents: 0, pendingCount: 0, pendingCents: 0 };
  return {
    summary: {
      count: 0,
      buckets: {
        card: zero,
        refund: zero,
        payment: zero,
        transfer: zero,
        released: zero,
        attempted: zero,
        returned: zero,
      },
      posted: { count: 0, cents: 0 },
    },
    freshness: { syncing: false, days: 0, daysDone: 0 },
  };
}

/** What the month close still needs when nothing does. */
export function quietAttention(overrides: Partial<Attention> = {}): Attention {
  const none = { count: 0, debitCents: 0 };
  // Asserted: the counts the BFF adds (receipts) need no part in these tests.
  return {
    missingReceipt: { ...none, fromCents: 0 },
    missingMemo: { ...none, categoryIds: [] },
    unreviewed: none,
    uncategorized: none,
    declined: { count: 0, cents: 0 },
    freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: Date.now() },
    ...overrides,
  } as Attention;
}

/** Every request the app sent in the current test, to assert headers and query strings. */
export const sentRequests: Request[] = [];
server.events.on('request:start', ({ request }) => {
  sentRequests.push(request.clone());
});

/**
 * The BFF's answer to a failed call: an RFC 9457 problem of `code` (checked against the shared
 * union, so a test cannot serve a problem the BFF could not send), as `application/problem+json`.
 * `extra`: the code's own members (`current` on `card_changed`...) and `retryAfterSeconds`.
 */
export function apiError<C extends ProblemCode>(
  status: number,
  code: C,
  detail = `failed with ${code}`,
  ...[extra]: C extends ExtendedProblemCode
    ? [extra: ProblemExtensions<C> & { retryAfterSeconds?: number }]
    : [extra?: { retryAfterSeconds?: number }]
) {
  const body = apiErrorBodySchema.parse({
    type: problemType(code),
    title: problemTitles[code],
    status,
    code,
    detail,
    requestId: `req-${code}`,
    ...extra,
  });
  return HttpResponse.json(body, {
    status,
    headers: { 'Content-Type': 'application/problem+json' },
  });
}

export function requestsTo(pathname: string, method = 'GET'): Request[] {
  return sentRequests.filter((r) => new URL(r.url).pathname === pathname && r.method === method);
}

/** A BFF with nobody signed in (401 on the session) offering the sign-in `meta` describes. */
export function serveSignedOut(meta: MetaResponse): void {
  server.use(
    serve('meta.get', () => HttpResponse.json(meta)),
    serve('session.get', () => apiError(401, 'unauthenticated', 'Sign in first.')),
  );
}
