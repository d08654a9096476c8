import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { StoreUnavailableError } from '../platform/store-unavailable';
import { AppError } from './app-error';
import { bodyParserError } from './json-body';
import { sendJson } from './send-json';

const clientCodes: Record<number, string> = {
  404: 'not_found',
  405: 'method_not_allowed',
  412: 'precondition_failed',
  416: 'range_not_satisfiable',
};

/**
 * A 4xx raised by Express itself or static serving (a malformed `%` escape in the path is a
 * URIError with status 400): the caller's fault, answered generically.
 */
function httpClientError(error: unknown): AppError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const code = typeof status === 'number' ? status : statusCode;
  if (typeof code !== 'number' || code < 400 || code > 499) return undefined;
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
  const fromBody = bodyParserError(error);
  if (fromBody) return fromBody;
  const fromHttp = httpClientError(error);
  if (fromHttp) return fromHttp;
  return new AppError(500, 'internal_error', 'Something went wrong on our side. Try again.', {
    cause: error,
  });
}

/** The one place an error becomes a response: `{ status, code, message, requestId }`. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
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
    const body: Record<string, unknown> = {
      ...appError.details,
      status: appError.status,
      code: appError.code,
      message: appError.message,
      requestId: req.requestId,
    };
    if (appError.retryAfterSeconds !== undefined) {
      body.retryAfterSeconds = appError.retryAfterSeconds;
      res.setHeader('Retry-After', String(appError.retryAfterSeconds));
    }
    sendJson(res, body, appError.status);
  };
}
