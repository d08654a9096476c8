import type { ApiErrorBody } from '@card-console/shared/api/error';
import { HttpResponse } from 'msw';
import { setupServer } from 'msw/node';

/** One MSW server for the web tests; each test adds the handlers it needs. */
export const server = setupServer();

/** Every request the app sent in the current test, to assert headers and query strings. */
export const sentRequests: Request[] = [];
server.events.on('request:start', ({ request }) => {
  sentRequests.push(request.clone());
});

export function apiError(
  status: number,
  code: string,
  message = `failed with ${code}`,
  extra: Partial<ApiErrorBody> = {},
) {
  const body: ApiErrorBody = { status, code, message, requestId: `req-${code}`, ...extra };
  return HttpResponse.json(body, { status });
}

export function requestsTo(pathname: string, method = 'GET'): Request[] {
  return sentRequests.filter((r) => new URL(r.url).pathname === pathname && r.method === method);
}
