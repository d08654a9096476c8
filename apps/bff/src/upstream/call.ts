import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { AppError } from '../core/app-error';
import type { Metrics, RetryBudgetName } from '../platform/metrics/metrics';
import { childTraceparent, type TraceContext } from '../platform/tracing/trace-context';
import { fullJitterDelay } from './backoff';
import type { BuiltRequest } from './operations';
import { parseRetryAfter } from './retry-after';
import type { RetryBudget } from './retry-budget';
import { bodyForLog } from './safe-message';
import { type AttemptOutcome, sendAttempt } from './send-attempt';
import { translateFailure } from './translate-error';
import type { UpstreamRedactor } from './upstream-redactor';

/** Everything the retry loop needs, fixed when the client is created. */
export interface CallEnvironment {
  dispatcher: Dispatcher;
  baseUrl: URL;
  apiKey: string;
  /** Built once from the key: every upstream string logged or shown goes through it. */
  redact: UpstreamRedactor;
  logger: Logger;
  attemptTimeoutMs: number;
  deadlineMs: number;
  maxRetries: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  maxBodyBytes: number;
  budget: RetryBudget;
  /** Which budget `budget` is, for the metrics. */
  budgetName: RetryBudgetName;
  /**
   * Shared by people's reads and the bulk walks: after the card service asked anyone to slow
   * down (429), bulk calls hold back until `until` (past the wait it asked for), so the tokens
   * it refills go to the people's reads retrying first. `yields` is true for the bulk lane.
   */
  bulkHold: { until: number };
  yields: boolean;
  metrics: Metrics;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => number;
}

export interface CallInput<S extends z.ZodType> {
  request: BuiltRequest;
  requestId: string;
  /** The request's trace: each attempt carries it on as a child span (`traceparent`). */
  trace?: TraceContext;
  schema: S;
  body?: unknown;
  signal?: AbortSignal;
  /** Overrides the client's deadline for this call (e.g. a readiness probe). */
  deadlineMs?: number;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function isRetryable(outcome: AttemptOutcome): boolean {
  if (outcome.kind === 'network' || outcome.kind === 'timeout') return true;
  return outcome.kind === 'response' && RETRYABLE_STATUS.has(outcome.status);
}

function headersFor(
  env: CallEnvironment,
  requestId: string,
  trace: TraceContext | undefined,
  hasBody: boolean,
): Record<string, string> {
  // Built from scratch: nothing from the browser's request (cookies, forwarding headers) is
  // copied. The trace goes on as validated fields, never as the caller's header text.
  const headers: Record<string, string> = { accept: 'application/json', 'x-api-key': env.apiKey };
  if (REQUEST_ID.test(requestId)) headers['x-request-id'] = requestId;
  if (trace) {
    headers.traceparent = childTraceparent(trace);
    if (trace.state) headers.tracestate = trace.state;
  }
  if (hasBody) headers['content-type'] = 'application/json';
  return headers;
}

/** The request path under the base URL's own path (a base of `https://host/v1` keeps `/v1`). */
function pathUnder(base: URL, pathAndQuery: string): string {
  return `${base.pathname.replace(/\/+$/, '')}${pathAndQuery}`;
}

/**
 * One logical upstream call: attempts with a per-attempt timeout inside a per-call deadline,
 * bounded jittered retries for reads only, Retry-After honoured, the retry budget respected,
 * and the answer validated against its schema. Reported to the metrics by operation and
 * outcome (`ok` or the error code the person gets).
 */
export async function executeCall<S extends z.ZodType>(
  env: CallEnvironment,
  input: CallInput<S>,
): Promise<z.output<S>> {
  const started = performance.now();
  try {
    const answer = await attemptCall(env, input);
    env.metrics.observeUpstream(input.request.template, 'ok', elapsed(started));
    return answer;
  } catch (error) {
    const outcome = error instanceof AppError ? error.code : 'internal_error';
    env.metrics.observeUpstream(input.request.template, outcome, elapsed(started));
    throw error;
  }
}

const elapsed = (started: number) => (performance.now() - started) / 1000;

async function attemptCall<S extends z.ZodType>(
  env: CallEnvironment,
  input: CallInput<S>,
): Promise<z.output<S>> {
  const { request, requestId, trace } = input;
  const isRead = request.method === 'GET';
  const deadline = env.now() + (input.deadlineMs ?? env.deadlineMs);
  const body = input.body === undefined ? undefined : JSON.stringify(input.body);
  const path = pathUnder(env.baseUrl, request.pathAndQuery);
  // A child logger costs a serialization of its bindings: made only when something is logged.
  let child: Logger | undefined;
  const log = () => {
    child ??= env.logger.child({ requestId, traceId: trace?.traceId, upstream: request.template });
    return child;
  };
  env.budget.recordRequest();

  for (let attempt = 0; ; attempt++) {
    if (env.yields) await holdForPeople(env, deadline, input.signal);
    const remaining = deadline - env.now();
    if (remaining <= 0) {
      throw new AppError(504, 'upstream_timeout', 'The card service took too long to answer.');
    }
    const started = performance.now();
    const outcome = await sendAttempt({
      dispatcher: env.dispatcher,
      origin: env.baseUrl.origin,
      path,
      method: request.method,
      headers: headersFor(env, requestId, trace, body !== undefined),
      ...(body === undefined ? {} : { body }),
      timeoutMs: Math.min(env.attemptTimeoutMs, remaining),
      maxBodyBytes: env.maxBodyBytes,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const status = outcome.kind === 'response' ? outcome.status : outcome.kind;
    if (env.logger.isLevelEnabled('debug')) {
      log().debug(
        { attempt, status, ms: Math.round(performance.now() - started) },
        'upstream attempt',
      );
    }

    if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300) {
      return parseSuccess(outcome.body, input.schema, log, env.redact);
    }
    const retryAfterMs =
      outcome.kind === 'response'
        ? parseRetryAfter(outcome.headers['retry-after'], env.now())
        : undefined;
    const retryAfterSeconds =
      retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(retryAfterMs / 1000));
    const fail = () =>
      translateFailure(outcome, {
        template: request.template,
        requestId,
        traceId: trace?.traceId,
        logger: env.logger,
        redact: env.redact,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      });

    if (!isRead || !isRetryable(outcome) || attempt >= env.maxRetries) throw fail();
    const wait =
      retryAfterMs ??
      fullJitterDelay(attempt, {
        baseMs: env.backoffBaseMs,
        capMs: env.backoffCapMs,
        random: env.random,
      });
    if (outcome.kind === 'response' && outcome.status === 429) {
      // Bulk calls stay back half as long again as the service asked: people's reads go first.
      const until = env.now() + Math.max(wait, 1_000) * BULK_HOLD_FACTOR;
      env.bulkHold.until = Math.max(env.bulkHold.until, until);
    }
    if (env.now() + wait >= deadline) {
      if (retryAfterMs !== undefined) {
        log().warn({ waitMs: wait }, 'upstream asked to wait past the deadline; failing fast');
        throw new AppError(
          503,
          'upstream_unavailable',
          'The card service is busy. Try again shortly.',
          {
            retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
          },
        );
      }
      throw fail();
    }
    if (!env.budget.tryRetry()) {
      env.metrics.retryBudgetExhausted(request.template, env.budgetName);
      log().warn('retry budget exhausted; not retrying');
      throw fail();
    }
    env.metrics.upstreamRetry(request.template, env.budgetName);
    try {
      await env.sleep(wait, input.signal);
    } catch {
      throw new AppError(499, 'client_closed', 'The request was cancelled.');
    }
  }
}

/** How much longer than a 429's wait the bulk lane holds back. */
const BULK_HOLD_FACTOR = 1.5;

/** A bulk call waits out the hold a 429 set, within its deadline (else it fails as busy). */
async function holdForPeople(env: CallEnvironment, deadline: number, signal?: AbortSignal) {
  const hold = env.bulkHold.until - env.now();
  if (hold <= 0) return;
  if (env.now() + hold >= deadline) {
    throw new AppError(
      503,
      'upstream_unavailable',
      'The card service is busy. Try again shortly.',
      {
        retryAfterSeconds: Math.max(1, Math.ceil(hold / 1000)),
      },
    );
  }
  try {
    await env.sleep(hold, signal);
  } catch {
    throw new AppError(499, 'client_closed', 'The request was cancelled.');
  }
}

function parseSuccess<S extends z.ZodType>(
  text: string,
  schema: S,
  log: () => Logger,
  redact: UpstreamRedactor,
): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    log().error({ snippet: bodyForLog(text, redact) }, 'upstream sent a body that is not JSON');
    throw new AppError(
      502,
      'upstream_invalid_response',
      'The card service sent an unreadable answer.',
    );
  }
  return checkAnswer(schema, json, log);
}

/**
 * An upstream answer (or part of one) against its schema; what is returned is the answer with
 * the fields the schema does not declare removed. A mismatch is logged (paths and messages
 * only) and becomes 502 upstream_invalid_response.
 */
export function checkAnswer<S extends z.ZodType>(
  schema: S,
  json: unknown,
  log: () => Logger,
): z.output<S> {
  const result = schema.safeParse(json);
  if (!result.success) {
    // Paths and messages only: values could hold a PAN.
    const issues = result.error.issues
      .slice(0, 5)
      .map((i) => ({ path: i.path.join('.'), message: i.message }));
    log().error({ issues }, 'upstream answer does not match its schema');
    throw new AppError(
      502,
      'upstream_invalid_response',
      'The card service sent an unexpected answer.',
    );
  }
  return result.data;
}
