import type { ApiErrorBody } from '@card-console/shared/api/error';
import { type EndpointName, type Route, routes } from '@card-console/shared/contract/routes';
import type { EndpointSchemasOf } from '@card-console/shared/contract/schemas';
import type { z } from 'zod';
import { ApiError } from './api-error';
import { retryAfterSeconds } from './retry-after';

// The SPA's one client of the BFF, derived from the contract (packages/shared/src/contract): a
// call names its endpoint, the path, method and types come from the contract, and every JSON
// answer is parsed with the endpoint's response schema before anyone reads it. No other module
// holds an API path or casts an answer (the lint rule in biome.json, lint/no-api-paths.grit).

interface ApiRequestOptions {
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

type ApiQuery = Record<string, string | number | readonly string[] | undefined>;

/**
 * `change`: the 401 answered a change the person sent (anything but a read, and but the
 * session's own steps: a second factor's options or check), which was therefore not made.
 */
type UnauthenticatedListener = (error: ApiError, request: { change: boolean }) => void;
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
async function apiRequest(path: string, options: ApiRequestOptions = {}): Promise<Response> {
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
    if (error.status === 401 && SESSION_GONE.has(error.code))
      onUnauthenticated?.(error, {
        change: (options.method ?? 'GET') !== 'GET' && !path.startsWith('/api/session'),
      });
    throw error;
  }
  return response;
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

type Schemas<N extends EndpointName> = EndpointSchemasOf<N>;
type Shape = Record<string, z.ZodType>;

/** Path parameters by name, as the contract declares them. */
type ParamsOf<N extends EndpointName> =
  Schemas<N> extends { params: infer P extends Shape } ? { [K in keyof P]: z.input<P[K]> } : never;
/** The query, each value optional (an undefined one is left out). */
type QueryOf<N extends EndpointName> =
  Schemas<N> extends { query: infer Q extends z.ZodType }
    ? { [K in keyof z.input<Q>]?: z.input<Q>[K] | undefined }
    : never;
/** The body: JSON, CSV text, or (a route that `sends: 'file'`) the file. */
type BodyOf<N extends EndpointName> = (typeof routes)[N] extends { sends: 'file' }
  ? Blob
  : Schemas<N> extends { body: infer B extends z.ZodType }
    ? z.input<B>
    : never;

/** What an endpoint answers, as its response schema parses it. */
export type AnswerOf<N extends EndpointName> =
  Schemas<N> extends { response: infer R extends z.ZodType } ? z.output<R> : never;

/** Endpoints answering JSON (or nothing: 204), and those answering a file. */
type JsonEndpoint = {
  [N in EndpointName]: (typeof routes)[N] extends { answers: string } ? never : N;
}[EndpointName];
type FileEndpoint = {
  [N in EndpointName]: (typeof routes)[N] extends { answers: 'file' } ? N : never;
}[EndpointName];
type NavigationEndpoint = {
  [N in EndpointName]: (typeof routes)[N] extends { answers: 'redirect' } ? N : never;
}[EndpointName];

/** A call's parts: each the contract declares is there (params and a body required). */
export type CallInput<N extends EndpointName> = ([ParamsOf<N>] extends [never]
  ? { params?: undefined }
  : { params: ParamsOf<N> }) &
  ([QueryOf<N>] extends [never] ? { query?: undefined } : { query?: QueryOf<N> }) &
  ([BodyOf<N>] extends [never] ? { body?: undefined } : { body: BodyOf<N> }) & {
    signal?: AbortSignal | undefined;
    /** A background poll: tells the BFF not to count it as activity. */
    background?: boolean;
    /** More request headers (a file's name beside its bytes). */
    headers?: Record<string, string>;
  };
type Args<N extends EndpointName> =
  Record<never, never> extends CallInput<N> ? [input?: CallInput<N>] : [input: CallInput<N>];

/** `/api` and the route's path, each `:name` replaced by its parameter, encoded. */
function pathOf(route: Route, params: Record<string, string> | undefined): string {
  const path = route.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new Error(`${route.path} needs its ${name}`);
    return encodeURIComponent(value);
  });
  return `/api${path}`;
}

function send(name: EndpointName, input: CallInput<EndpointName> | undefined, accept?: string) {
  const route: Route = routes[name];
  return apiRequest(pathOf(route, input?.params as Record<string, string> | undefined), {
    method: route.method,
    query: input?.query as ApiQuery | undefined,
    body: input?.body,
    contentType:
      route.sends === 'csv'
        ? 'text/csv'
        : route.sends === 'file'
          ? 'application/octet-stream'
          : undefined,
    ...(input?.headers ? { headers: input.headers } : {}),
    ...(input?.background ? { background: true } : {}),
    ...(accept ? { accept } : {}),
    signal: input?.signal,
  });
}

/** The contract's schemas: their chunk (and zod's) loads with the first answer, not before. */
let schemas: Promise<typeof import('@card-console/shared/contract/schemas')> | undefined;
function loadSchemas() {
  schemas ??= import('@card-console/shared/contract/schemas').catch((cause: unknown) => {
    schemas = undefined; // a later call tries again (offline now, a newer deployment)
    throw cause;
  });
  return schemas;
}

/**
 * Calls a JSON endpoint and returns its answer, parsed with the endpoint's response schema: an
 * answer the schema does not hold is an `invalid_response` error, never a value of the wrong
 * shape. A 204 is `undefined`.
 */
export async function api<N extends JsonEndpoint>(
  name: N,
  ...[input]: Args<N>
): Promise<AnswerOf<N>> {
  const [response, loaded] = await Promise.all([
    send(name, input as CallInput<EndpointName> | undefined),
    loadSchemas().catch(() => undefined),
  ]);
  const invalid = () =>
    new ApiError({
      status: response.status,
      code: 'invalid_response',
      detail: 'The server sent an answer this page does not understand.',
      requestId: response.headers.get('x-request-id') ?? undefined,
    });
  let json: unknown;
  try {
    const text = await response.text();
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw invalid();
  }
  // Its chunk did not load: asked once more, as the answer is here.
  const contract = loaded ?? (await loadSchemas().catch(() => undefined));
  if (!contract) {
    throw new ApiError({
      status: 0,
      code: 'network_error',
      detail: 'Part of this page could not be loaded. Check your connection and reload.',
    });
  }
  const schema: z.ZodType = contract.endpointSchemas[name].response;
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw invalid();
  return parsed.data as AnswerOf<N>;
}

/** Calls an endpoint that answers a file (a CSV export, a receipt): the response, if ok. */
export function apiFile<N extends FileEndpoint>(name: N, ...[input]: Args<N>): Promise<Response> {
  return send(name, input as CallInput<EndpointName> | undefined, '*/*');
}

/** Where a navigation endpoint is (single sign-on), for the browser to go to. */
export function apiHref<N extends NavigationEndpoint>(
  name: N,
  query?: CallInput<N>['query'],
): string {
  return apiUrl(pathOf(routes[name], undefined), query as ApiQuery | undefined);
}
