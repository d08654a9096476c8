import {
  BrokenCircuitError,
  BulkheadRejectedError,
  TaskCancelledError,
  TimeoutStrategy,
  timeout,
} from 'cockatiel';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { AppError } from '../core/app-error';
import { abortable, abortableSleep } from '../platform/abort-fan-out';
import type { Metrics } from '../platform/metrics/metrics';
import type { ServicePace } from '../platform/pagination/pace';
import { childTraceparent, type TraceContext } from '../platform/tracing/trace-context';
import type { BuiltRequest } from './operations';
import { AttemptFailure, type Lane } from './resilience';
import { parseRetryAfter } from './retry-after';
import { bodyForLog } from './safe-message';
import { type AttemptOutcome, sendAttempt } from './send-attempt';
import { translateFailure } from './translate-error';
import type { UpstreamRedactor } from './upstream-redactor';

/** Everything a call needs, fixed when the client is created. */
export interface CallEnvironment {
  dispatcher: Dispatcher;
  baseUrl: URL;
  apiKey: string;
  /** Built once from the key: every upstream string logged or shown goes through it. */
  redact: UpstreamRedactor;
  logger: Logger;
  attemptTimeoutMs: number;
  deadlineMs: number;
  maxBodyBytes: number;
  /** Retries, backoff and the circuit breaker of this lane (`resilience.ts`). */
  lane: Lane;
  /**
   * Shared by people's reads and the bulk walks: after the card service asked anyone to slow
   * down (429), bulk calls hold back until `until` (past the wait it asked for), so people's
   * reads retrying go first. `yields` is true for the bulk lane.
   */
  bulkHold: { until: number };
  /** The walks' pace (`platform/pagination/pace.ts`), shared by both lanes: told of every 429. */
  pace: Pick<ServicePace, 'busy'>;
  yields: boolean;
  metrics: Metrics;
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

const OVERLOAD_STATUS = new Set([429, 502, 503, 504]);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A sign the card service is struggling: what reads retry, and what opens the circuit. */
function isOverload(outcome: AttemptOutcome): boolean {
  if (outcome.kind === 'network' || outcome.kind === 'timeout') return true;
  return outcome.kind === 'response' && OVERLOAD_STATUS.has(outcome.status);
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
 * One logical upstream call on cockatiel's policies (`resilience.ts`): attempts with a
 * per-attempt timeout inside a per-call deadline (`timeout`, aggressive: the call ends at it),
 * bounded jittered retries for reads only with Retry-After honoured, through the lane's circuit
 * breaker, and the answer validated against its schema. Reported to the metrics by operation
 * and outcome (`ok` or the error code the person gets).
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

/** One deadline policy per length (a call's, the readiness probe's): built once each. */
const deadlines = new Map<number, ReturnType<typeof timeout>>();
function deadlineOf(ms: number) {
  let policy = deadlines.get(ms);
  if (!policy) {
    // A call that has returned or failed has nothing left in flight (its body is read in full):
    // aborting its signal then only builds an AbortError, stack and all, for every call.
    policy = timeout(ms, { strategy: TimeoutStrategy.Aggressive, abortOnReturn: false });
    deadlines.set(ms, policy);
  }
  return policy;
}

const cancelled = () => new AppError(499, 'client_closed', 'The request was cancelled.');
const tooSlow = () =>
  new AppError(504, 'upstream_timeout', 'The card service took too long to answer.');
const busy = (waitMs: number) =>
  new AppError(503, 'upstream_unavailable', 'The card service is busy. Try again shortly.', {
    retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
  });

async function attemptCall<S extends z.ZodType>(
  env: CallEnvironment,
  input: CallInput<S>,
): Promise<z.output<S>> {
  const { request, requestId, trace, signal } = input;
  if (signal?.aborted) throw cancelled();
  const isRead = request.method === 'GET';
  const deadlineMs = input.deadlineMs ?? env.deadlineMs;
  const deadline = env.now() + deadlineMs;
  const body = input.body === undefined ? undefined : JSON.stringify(input.body);
  const path = pathUnder(env.baseUrl, request.pathAndQuery);
  // A child logger costs a serialization of its bindings: made only when something is logged.
  let child: Logger | undefined;
  const log = () => {
    child ??= env.logger.child({ requestId, traceId: trace?.traceId, upstream: request.template });
    return child;
  };

  const once = async (attempt: number): Promise<z.output<S>> => {
    if (env.yields) await holdForPeople(env, deadline, log, signal);
    // A retry's wait may have outlived the caller: nothing more is sent then.
    if (signal?.aborted) throw cancelled();
    const remaining = deadline - env.now();
    if (remaining <= 0) throw tooSlow();
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
      ...(signal ? { signal } : {}),
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
    const failure = translateFailure(outcome, {
      template: request.template,
      requestId,
      traceId: trace?.traceId,
      logger: env.logger,
      redact: env.redact,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
    const overload = isOverload(outcome);
    const tooMany = outcome.kind === 'response' && outcome.status === 429;
    // A 429 to a walk is the card service naming its pace, which the walks' pace keeps to: it
    // never opens the walks' circuit (a storm of them at its rate limit would, and fail them).
    const how = { overload: overload && !(tooMany && env.yields), template: request.template, log };
    if (tooMany) {
      env.pace.busy(retryAfterMs);
      // Bulk calls stay back half as long again as the service asked: people's reads go first.
      const wait = retryAfterMs ?? 0;
      const until = env.now() + Math.max(wait, 1_000) * BULK_HOLD_FACTOR;
      env.bulkHold.until = Math.max(env.bulkHold.until, until);
    }
    if (!isRead || !overload) throw new AttemptFailure(failure, { ...how, retry: false });
    if (retryAfterMs !== undefined && env.now() + retryAfterMs >= deadline) {
      log().warn(
        { waitMs: retryAfterMs },
        'upstream asked to wait past the deadline; failing fast',
      );
      throw new AttemptFailure(busy(retryAfterMs), { ...how, retry: false });
    }
    throw new AttemptFailure(failure, {
      ...how,
      retry: true,
      ...(retryAfterMs === undefined ? {} : { waitAskedMs: retryAfterMs }),
    });
  };

  const call = deadlineOf(deadlineMs).execute(({ signal: cut }) => env.lane.run(once, cut));
  try {
    // The caller's signal through the fan-out (one listener however many calls share it).
    return await abortable(call, signal);
  } catch (error) {
    if (signal?.aborted) throw cancelled();
    if (error instanceof AttemptFailure) throw error.failure;
    if (error instanceof TaskCancelledError) throw tooSlow();
    if (error instanceof BulkheadRejectedError) {
      log().warn('too many bulk calls waiting for the card service; refused');
      throw busy(1_000);
    }
    if (error instanceof BrokenCircuitError) {
      env.metrics.circuitRefused(request.template, env.lane.lane);
      log().warn('the circuit to the card service is open; not calling it');
      throw busy(env.lane.halfOpenAfterMs);
    }
    throw error;
  }
}

/** How much longer than a 429's wait the bulk lane holds back. */
const BULK_HOLD_FACTOR = 1.5;

/**
 * A bulk call waits out the hold 429s set, within its deadline (else it fails as busy), and then
 * as much longer as later 429s lengthened the hold while it slept.
 */
async function holdForPeople(
  env: CallEnvironment,
  deadline: number,
  log: () => Logger,
  signal?: AbortSignal,
) {
  let until = env.bulkHold.until;
  let hold = until - env.now();
  while (hold > 0) {
    if (env.now() + hold >= deadline) throw busy(hold);
    log().debug({ waitMs: hold }, 'bulk call held back');
    try {
      await abortableSleep(hold, signal);
    } catch {
      throw cancelled();
    }
    hold = env.bulkHold.until - until;
    until = env.bulkHold.until;
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
