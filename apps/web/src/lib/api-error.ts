import type { ApiErrorBody, ProblemCode, ProblemOf } from '@card-console/shared/api/error';

/**
 * The codes of errors the SPA makes itself: no answer (`network_error`), an answer that is not
 * a problem it knows (`http_error`) or not JSON (`invalid_response`), a download cut short.
 */
export type ClientErrorCode =
  | 'network_error'
  | 'http_error'
  | 'invalid_response'
  | 'export_interrupted';

interface ApiErrorFields {
  /** The HTTP status; 0 when nothing answered. */
  status: number;
  code: ProblemCode | ClientErrorCode;
  /** What the person reads: the problem's `detail` (the error's message). */
  detail: string;
  requestId?: string | undefined;
  retryAfterSeconds?: number | undefined;
  /** The problem details the BFF sent, as the shared union parsed them. */
  problem?: ApiErrorBody | undefined;
}

/** Every failed `/api` call surfaces as one of these, whatever the server sent. */
export class ApiError extends Error {
  // `declare`d and filled by one Object.assign: the field list is not repeated in the first
  // download (docs/decisions/0091-first-download-budget.md).
  declare readonly status: number;
  declare readonly code: ProblemCode | ClientErrorCode;
  declare readonly requestId: string | undefined;
  declare readonly retryAfterSeconds: number | undefined;
  /**
   * The BFF's RFC 9457 problem, parsed with the shared union (`apiErrorBodySchema`); undefined
   * for an error the SPA made. Narrowed by its `code`, it has that code's own members:
   * `current` on 409 `card_changed`, `secondFactor` on 401 `second_factor_required` and
   * `step_up_required`.
   */
  declare readonly problem: ApiErrorBody | undefined;
  /** When the answer came (ms since the epoch): a `Retry-After` counts from here. */
  declare readonly receivedAt: number;

  constructor({ detail, ...fields }: ApiErrorFields) {
    super(detail);
    Object.assign(this, fields);
    this.name = 'ApiError';
    this.receivedAt = Date.now();
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/** Is this error one that goes away by itself after a wait (rate limit, overload)? */
export function isRetryableApiError(error: unknown): error is ApiError {
  return isApiError(error) && (error.status === 429 || error.status === 503);
}

/**
 * The BFF's problem when `error` is one of `codes`, typed with their members:
 * `apiProblem(error, 'card_changed')?.current`.
 */
export function apiProblem<C extends ProblemCode>(
  error: unknown,
  ...codes: C[]
): ProblemOf<C> | undefined {
  const problem = isApiError(error) ? error.problem : undefined;
  return problem && (codes as ProblemCode[]).includes(problem.code)
    ? (problem as ProblemOf<C>)
    : undefined;
}

/**
 * Not allowed (403) or not found (404): asking again gives the same answer, so a screen shows a
 * dead end with a way on (RouteError) rather than an error with a Retry.
 */
export function isDeadEndError(error: unknown): error is ApiError {
  return isApiError(error) && (error.status === 403 || error.status === 404);
}
