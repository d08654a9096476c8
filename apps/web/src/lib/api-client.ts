import type { ApiErrorBody } from '@card-console/shared/api/error';
import { ApiError } from './api-error';
import { apiUrl, dropEarlyResponses, takeEarlyResponse } from './early-requests';
import { retryAfterSeconds } from './retry-after';

export interface ApiRequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A background poll: tells the BFF not to count it as activity. */
  background?: boolean;
  /** What to ask for; JSON unless said otherwise. */
  accept?: string;
  signal?: AbortSignal | undefined;
}

type UnauthenticatedListener = (error: ApiError) => void;
/** 401 codes that mean the session is over: it lapsed, or the BFF ended it (wrong codes). */
const SESSION_GONE = new Set(['unauthenticated', 'session_ended']);
let onUnauthenticated: UnauthenticatedListener | undefined;

/** The router registers how "your session ended" is handled; the client only reports it. */
export function setUnauthenticatedListener(listener: UnauthenticatedListener | undefined): void {
  onUnauthenticated = listener;
}

/** Sends one `/api` request the way the BFF requires and returns the raw response if ok. */
export async function apiRequest(path: string, options: ApiRequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {
    'X-CSRF': '1',
    Accept: options.accept ?? 'application/json',
  };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.background) headers['X-Background'] = '1';
  const url = apiUrl(path, options.query);
  // A plain GET the page already sent while the app loaded (lib/early-requests.ts).
  const method = options.method ?? 'GET';
  if (method !== 'GET') dropEarlyResponses();
  const plainGet = method === 'GET' && !options.background && options.accept === undefined;
  let response: Response;
  try {
    options.signal?.throwIfAborted();
    const early = plainGet ? takeEarlyResponse(url) : undefined;
    // Absolute against the page, so it is the same origin in the browser and in tests.
    response = await (early ??
      fetch(new URL(url, window.location.href), {
        method,
        headers,
        credentials: 'same-origin',
        cache: 'no-store',
        body: options.body === undefined ? null : JSON.stringify(options.body),
        signal: options.signal ?? null,
      }));
  } catch (cause) {
    if (options.signal?.aborted) throw cause;
    throw new ApiError({
      status: 0,
      code: 'network_error',
      message: 'The server could not be reached. Check your connection and try again.',
    });
  }
  if (!response.ok) {
    const error = await toApiError(response);
    // Signed out (here or in another tab): what was read early may no longer hold.
    if (error.status === 401) dropEarlyResponses();
    if (error.status === 401 && SESSION_GONE.has(error.code)) onUnauthenticated?.(error);
    throw error;
  }
  return response;
}

/**
 * Sends a request and returns its JSON, typed by the shared schema's type. The BFF validates
 * everything it sends with those schemas; the SPA does not parse them again at run time, which
 * keeps zod out of the first download (see README: bundle budget).
 */
export async function apiJson<T>(path: string, options: ApiRequestOptions = {}): Promise<T> {
  const response = await apiRequest(path, options);
  try {
    return (await response.json()) as T;
  } catch {
    throw new ApiError({
      status: response.status,
      code: 'invalid_response',
      message: 'The server sent an answer this page does not understand.',
      requestId: response.headers.get('x-request-id') ?? undefined,
    });
  }
}

function isErrorBody(value: unknown): value is ApiErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.status === 'number' &&
    typeof v.code === 'string' &&
    typeof v.message === 'string' &&
    (v.retryAfterSeconds === undefined || typeof v.retryAfterSeconds === 'number')
  );
}

async function toApiError(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // The body's own figure wins; a proxy or rate limiter in front may send only the header.
  const retryAfter = retryAfterSeconds(response.headers);
  const wait = retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter };
  if (isErrorBody(json)) return new ApiError({ ...wait, ...json });
  return new ApiError({
    status: response.status,
    code: 'http_error',
    message: `The server answered ${response.status} ${response.statusText}`.trim(),
    requestId: response.headers.get('x-request-id') ?? undefined,
    ...wait,
  });
}
