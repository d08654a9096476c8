import type { ApiErrorBody } from '@card-console/shared/api/error';

/** Every failed `/api` call surfaces as one of these, whatever the server sent. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** On 409 `card_changed`: the card's values now. */
  readonly current: ApiErrorBody['current'];

  constructor(body: Omit<ApiErrorBody, 'requestId'> & { requestId?: string | undefined }) {
    super(body.message);
    this.name = 'ApiError';
    this.status = body.status;
    this.code = body.code;
    this.requestId = body.requestId;
    this.retryAfterSeconds = body.retryAfterSeconds;
    this.current = body.current;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/** Is this error one that goes away by itself after a wait (rate limit, overload)? */
export function isRetryableApiError(error: unknown): error is ApiError {
  return isApiError(error) && (error.status === 429 || error.status === 503);
}
