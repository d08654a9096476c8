import type { ApiErrorBody } from '@card-console/shared/api/error';

/** Every failed `/api` call surfaces as one of these, whatever the server sent. */
export class ApiError extends Error {
  // `declare`d and filled by one Object.assign: the field list is not repeated in the first
  // download (README: bundle budget). The body's fields are the server's error fields.
  declare readonly status: number;
  declare readonly code: string;
  declare readonly requestId: string | undefined;
  declare readonly retryAfterSeconds: number | undefined;
  /** On 409 `card_changed`: the card's values now. */
  declare readonly current: ApiErrorBody['current'];
  /** On 401 `second_factor_required` / `step_up_required`: the factors the person may use. */
  declare readonly secondFactor: ApiErrorBody['secondFactor'];
  /** When the answer came (ms since the epoch): a `Retry-After` counts from here. */
  declare readonly receivedAt: number;

  constructor(body: Omit<ApiErrorBody, 'requestId'> & { requestId?: string | undefined }) {
    super(body.message);
    Object.assign(this, body);
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
