import type { ApiErrorBody } from '@card-console/shared/api/error';
import { ApiError } from './api-error';
import { retryAfterSeconds } from './retry-after';

export interface ApiRequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Query parameters; undefined values are left out, a list repeats its key. */
  query?: ApiQuery;
  /** Sent as JSON, as it is (a string) when `contentType` names its type, or a file's bytes. */
  body?: unknown;
  contentType?: string;
  /** More request headers (a file's name beside its bytes). */
  headers?: Record<string, string>;
  /** A background poll: tells the BFF not to count it as activity. */
  background?: boolean;
  /** What to ask for; JSON unless said otherwise. */
  accept?: string;
  signal?: AbortSignal | undefined;
}

export type ApiQuery = Record<string, string | number | readonly string[] | undefined>;

type UnauthenticatedListener = (error: ApiError) => void;
/** 401 codes that mean the session is over: it lapsed, or the BFF ended it (wrong codes). */
const SESSION_GONE = new Set(['unauthenticated', 'session_ended']);
let onUnauthenticated: UnauthenticatedListener | undefined;

/** The router registers how "your session ended" is handled; the client only reports it. */
export function setUnauthenticatedListener(listener: UnauthenticatedListener | undefined): void {
  onUnauthenticated = listener;
}

/** `path?query`, leaving undefined values out; a list is its key once per value. */
function apiUrl(path: string, query?: ApiQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (typeof value === 'object') for (const item of value) params.append(key, item);
    else if (value !== undefined) params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Sends one `/api` request the way the BFF requires and returns the raw response if ok. */
export async function apiRequest(path: string, options: ApiRequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {
    ...options.headers,
    'X-CSRF': '1',
    Accept: options.accept ?? 'application/json',
  };
  if (options.body !== undefined)
    headers['Content-Type'] = options.contentType ?? 'application/json';
  if (options.background) headers['X-Background'] = '1';
  const url = apiUrl(path, options.query);
  let response: Response;
  try {
    options.signal?.throwIfAborted();
    // Absolute against the page, so it is the same origin in the browser and in tests.
    response = await fetch(new URL(url, window.location.href), {
      method: options.method ?? 'GET',
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      body:
        options.body === undefined
          ? null
          : options.body instanceof Blob
            ? options.body
            : options.contentType
              ? String(options.body)
              : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (cause) {
    if (options.signal?.aborted) throw cause;
    throw new ApiError({
      status: 0,
      code: 'network_error',
      detail: 'The server could not be reached. Check your connection and try again.',
    });
  }
  if (!response.ok) {
    const error = await toApiError(response);
    if (error.status === 401 && SESSION_GONE.has(error.code)) onUnauthenticated?.(error);
    throw error;
  }
  return response;
}

/**
 * Sends a request and returns its JSON, typed by the shared schema's type. The BFF validates
 * everything it sends with those schemas; the SPA does not parse them again at run time, which
 * keeps zod out of the first download (docs/decisions/0091-first-download-budget.md).
 */
export async function apiJson<T>(path: string, options: ApiRequestOptions = {}): Promise<T> {
  const response = await apiRequest(path, options);
  try {
    return (await response.json()) as T;
  } catch {
    throw new ApiError({
      status: response.status,
      code: 'invalid_response',
      detail: 'The server sent an answer this page does not understand.',
      requestId: response.headers.get('x-request-id') ?? undefined,
    });
  }
}

/**
 * The BFF's RFC 9457 problem details, parsed with the shared union; undefined for any other
 * body (a proxy's page, a code this build does not know). The schema and zod load with the
 * first error, not in the first download (docs/decisions/0091-first-download-budget.md).
 */
async function parseProblem(text: string): Promise<ApiErrorBody | undefined> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  try {
    const { apiErrorBodySchema } = await import('@card-console/shared/api/error');
    const parsed = apiErrorBodySchema.safeParse(json);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // the schema's chunk did not load (offline, a newer deployment)
  }
}

async function toApiError(response: Response): Promise<ApiError> {
  const problem = await parseProblem(await response.text().catch(() => ''));
  // The body's own figure wins; a proxy or rate limiter in front may send only the header.
  const retryAfter = problem?.retryAfterSeconds ?? retryAfterSeconds(response.headers);
  if (problem) {
    return new ApiError({
      status: response.status,
      code: problem.code,
      detail: problem.detail,
      requestId: problem.requestId,
      retryAfterSeconds: retryAfter,
      problem,
    });
  }
  return new ApiError({
    status: response.status,
    code: 'http_error',
    detail: `The server answered ${response.status} ${response.statusText}`.trim(),
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfterSeconds: retryAfter,
  });
}
