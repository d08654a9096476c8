import {
  type ApiErrorBody,
  type PlainProblemCode,
  problemTitles,
  problemType,
} from '@card-console/shared/api/error';
import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { AppError } from '../core/app-error';
import { StoreUnavailableError } from '../platform/store-unavailable';

/** The media type of every error answer (RFC 9457). */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const clientCodes: Partial<Record<number, PlainProblemCode>> = {
  404: 'not_found',
  405: 'method_not_allowed',
  412: 'precondition_failed',
  416: 'range_not_satisfiable',
};

/**
 * body-parser's errors (`express.json`) carry a `type`; all of them are the caller's fault: 400,
 * and a body over the limit 413 (Content Too Large, as an upload over its limit is answered).
 * Their own messages are not shown (they can quote the body).
 */
function bodyParserError(error: object): AppError | undefined {
  const { type, limit } = error as { type?: unknown; limit?: unknown };
  if (typeof type !== 'string') return undefined;
  if (type === 'entity.too.large') {
    const over = typeof limit === 'number' ? ` over ${limit / 1024} KiB` : ' too large';
    return new AppError(413, 'body_too_large', `The request body is${over}.`);
  }
  if (type === 'entity.parse.failed') {
    return new AppError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
  if (/^(encoding|charset|request|entity)\./.test(type)) {
    return new AppError(400, 'invalid_body', 'The request body could not be read.');
  }
  return undefined;
}

/**
 * A 4xx raised by Express itself or static serving (a malformed `%` escape in a path parameter
 * is an error with status 400): the caller's fault, answered generically with its status.
 */
function httpClientError(error: object): AppError | undefined {
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const code = typeof status === 'number' ? status : statusCode;
  if (typeof code !== 'number' || !Number.isInteger(code) || code < 400 || code > 499) {
    return undefined;
  }
  return new AppError(
    code,
    clientCodes[code] ?? 'bad_request',
    'The request could not be understood.',
  );
}

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    return new AppError(400, 'invalid_request', `${where}${issue?.message ?? 'invalid request'}`);
  }
  if (error instanceof StoreUnavailableError) {
    return new AppError(
      503,
      'store_unavailable',
      'Card Console cannot reach its session or audit store right now. Try again shortly.',
      { cause: error, retryAfterSeconds: 5 },
    );
  }
  if (typeof error === 'object' && error !== null) {
    const fromExpress = bodyParserError(error) ?? httpClientError(error);
    if (fromExpress) return fromExpress;
  }
  // Anything else is ours: a 500 that says nothing of what went wrong (the log line does).
  return new AppError(500, 'internal_error', 'Something went wrong on our side. Try again.', {
    cause: error,
  });
}

/** The problem details of an error, as `apiErrorBodySchema` describes them. */
export function problemOf(error: AppError, requestId: string): ApiErrorBody {
  return {
    type: problemType(error.code),
    title: problemTitles[error.code],
    status: error.status,
    detail: error.message,
    ...(error.retryAfterSeconds === undefined
      ? {}
      : { retryAfterSeconds: error.retryAfterSeconds }),
    // The union holds: AppError's constructor gave this code exactly its own members.
    ...(error.extensions as object | undefined),
    code: error.code,
    requestId,
  } as ApiErrorBody;
}

/**
 * The one place an error becomes a response: an RFC 9457 problem (`application/problem+json`).
 * Express's error-middleware signature (four parameters), mounted last.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const appError = toAppError(error);
    res.errorCode = appError.code;
    if (appError.status >= 500) {
      // pino-http logs the request line with this error attached; details stay server-side.
      res.err = appError.cause instanceof Error ? appError.cause : appError;
    }
    if (res.headersSent) {
      // A stream (CSV export) failed part-way: the only honest signal left is a broken response.
      logger.error(
        { err: error, requestId: req.requestId, traceId: req.trace?.traceId },
        'response failed after headers were sent',
      );
      res.destroy();
      return;
    }
    if (appError.retryAfterSeconds !== undefined) {
      res.setHeader('Retry-After', String(appError.retryAfterSeconds));
    }
    res.status(appError.status).type(PROBLEM_CONTENT_TYPE).json(problemOf(appError, req.requestId));
  };
}
