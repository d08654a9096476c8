import type { Logger } from 'pino';
import { AppError } from '../core/app-error';
import { bodyForLog, parseErrorBody, safeUpstreamMessage } from './safe-message';
import type { AttemptOutcome } from './send-attempt';
import type { UpstreamRedactor } from './upstream-redactor';

export interface FailureContext {
  template: string;
  requestId: string;
  /** The request's trace id, for the log line. */
  traceId?: string | undefined;
  logger: Logger;
  /** Applied to every upstream string logged or shown: the key removed, card numbers masked. */
  redact: UpstreamRedactor;
  /** Seconds from the upstream's Retry-After, when it sent one. */
  retryAfterSeconds?: number;
}

const DEFAULT_RETRY_AFTER_SECONDS = 1;

/**
 * Turns a failed attempt into the AppError a person sees. The upstream's own words go to the
 * log; the person gets a stable code (and, for a 400, the service's reason when it is safe).
 */
export function translateFailure(outcome: AttemptOutcome, ctx: FailureContext): AppError {
  const log = ctx.logger.child({
    requestId: ctx.requestId,
    traceId: ctx.traceId,
    upstream: ctx.template,
  });
  switch (outcome.kind) {
    case 'timeout':
      log.warn('upstream timed out');
      return new AppError(504, 'upstream_timeout', 'The card service took too long to answer.');
    case 'aborted':
      return new AppError(499, 'client_closed', 'The request was cancelled.');
    case 'too-large':
      log.error('upstream response over the size limit');
      return new AppError(
        502,
        'upstream_invalid_response',
        'The card service sent an unreadable answer.',
      );
    case 'network': {
      // The message may quote what the service or a proxy sent: redacted like any upstream text.
      const { message, code } = outcome.error as { message: string; code?: unknown };
      log.warn(
        {
          err: {
            message: ctx.redact(String(message)),
            code: typeof code === 'string' ? ctx.redact(code) : undefined,
          },
        },
        'upstream unreachable',
      );
      return new AppError(502, 'upstream_unreachable', 'The card service could not be reached.');
    }
    case 'response':
      return translateStatus(outcome.status, outcome.body, ctx, log);
  }
}

function translateStatus(status: number, body: string, ctx: FailureContext, log: Logger): AppError {
  const documented = parseErrorBody(body);
  // The upstream's own words, for the log only: redacted (never the key), digit runs masked.
  const upstream = documented
    ? {
        status,
        code: bodyForLog(documented.code, ctx.redact),
        message: bodyForLog(documented.message, ctx.redact),
      }
    : { status, snippet: bodyForLog(body, ctx.redact) };
  if (status >= 300 && status < 400) {
    log.error({ upstreamResponse: upstream }, 'upstream answered with a redirect; not followed');
    return new AppError(502, 'upstream_bad_gateway', 'The card service answered unexpectedly.');
  }
  if (status === 401 || status === 403) {
    log.error(
      { upstreamResponse: upstream, alarm: 'upstream_key_rejected' },
      'ALARM: the card service refused the API key',
    );
    return new AppError(
      502,
      'upstream_key_rejected',
      "The card service refused this program's key. An administrator has been alerted.",
    );
  }
  if (status === 404) {
    log.info({ upstreamResponse: upstream }, 'upstream: not found');
    return new AppError(404, 'not_found', 'Not found.');
  }
  if (status === 429) {
    log.warn({ upstreamResponse: upstream }, 'upstream rate limit');
    return new AppError(
      503,
      'upstream_unavailable',
      'The card service is busy. Try again shortly.',
      {
        retryAfterSeconds: ctx.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
      },
    );
  }
  if (status === 400 || status === 422) {
    log.info({ upstreamResponse: upstream }, 'upstream rejected the request');
    const shown = documented ? safeUpstreamMessage(documented.message, ctx.redact) : undefined;
    return new AppError(400, 'upstream_rejected', shown ?? 'The card service refused the request.');
  }
  if (status === 503) {
    log.warn({ upstreamResponse: upstream }, 'upstream unavailable');
    return new AppError(
      503,
      'upstream_unavailable',
      'The card service is unavailable. Try again shortly.',
      {
        retryAfterSeconds: ctx.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
      },
    );
  }
  log.error({ upstreamResponse: upstream }, 'upstream error');
  return new AppError(502, 'upstream_error', 'The card service failed to answer.');
}
