import {
  type BulkheadPolicy,
  bulkhead,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleWhen,
  type IBackoff,
  type IBackoffFactory,
  type IRetryBackoffContext,
  noJitterGenerator,
  retry,
} from 'cockatiel';
import type { Logger } from 'pino';
import type { AppError } from '../core/app-error';
import type { Metrics, UpstreamLane } from '../platform/metrics/metrics';

/**
 * An attempt that brought no answer. `failure` is what the person gets if no attempt follows;
 * `retry` says one may (a read meeting a passing failure, with time left for the wait asked);
 * `overload` says the card service is struggling (network, timeout, 429, 502, 503, 504), which
 * counts towards opening the circuit.
 */
export class AttemptFailure extends Error {
  constructor(
    readonly failure: AppError,
    readonly how: {
      retry: boolean;
      overload: boolean;
      /** The wait the card service asked for (`Retry-After`), if it did. */
      waitAskedMs?: number;
      template: string;
      log: () => Logger;
    },
  ) {
    super(failure.message);
  }
}

export interface LaneOptions {
  lane: UpstreamLane;
  /** Retries after the first attempt (reads only). */
  maxRetries: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  random: () => number;
  /** Overload failures in a row that open the circuit. */
  breakerThreshold: number;
  /** How long an open circuit refuses calls before it lets one through to try. */
  halfOpenAfterMs: number;
  /**
   * Attempts of this lane in flight at once (a bulkhead), the rest waiting in line; none when
   * absent. The bulk walks' lane has one, so they never hold every connection to the card
   * service: people's reads always find one free.
   */
  concurrency?: number;
  metrics: Metrics;
}

/** Attempts waiting for a bulkhead's slot at most; more are refused (503). */
export const BULKHEAD_LINE = 1_000;

/** The policies one lane's calls go through (people's reads and writes, or the bulk walks'). */
export interface Lane {
  readonly lane: UpstreamLane;
  /**
   * Runs `attempt` (given its number, from 0) with retries, each attempt through the circuit
   * breaker; `signal` (the call's deadline) ends the retrying.
   */
  run<T>(attempt: (n: number) => Promise<T>, signal: AbortSignal): Promise<T>;
  readonly halfOpenAfterMs: number;
}

/**
 * One lane's resilience, on cockatiel: `retry` with exponential backoff and full jitter (or
 * the wait the card service asked for), around a circuit breaker that opens after
 * `breakerThreshold` overload failures in a row, so a struggling card service gets a rest
 * instead of every call and its retries, around a bulkhead when the lane has a `concurrency`.
 * Each lane has its own breaker: walks failing never open the circuit for people's reads.
 */
export function createLane(o: LaneOptions): Lane {
  const breaker = circuitBreaker(
    handleWhen((e) => e instanceof AttemptFailure && e.how.overload),
    { halfOpenAfter: o.halfOpenAfterMs, breaker: new ConsecutiveBreaker(o.breakerThreshold) },
  );
  const jitter = new ExponentialBackoff<number>({
    initialDelay: o.backoffBaseMs,
    maxDelay: o.backoffCapMs,
    // cockatiel's full jitter with the client's own random source (deterministic in tests).
    generator: (state, options) => {
      const [ceiling, next] = noJitterGenerator(state, options);
      return [Math.floor(o.random() * ceiling), next];
    },
  });
  // No retry once the failure has opened the circuit: it would only be refused.
  const retries = retry(
    handleWhen(
      (e) => e instanceof AttemptFailure && e.how.retry && breaker.state !== CircuitState.Open,
    ),
    { maxAttempts: o.maxRetries, backoff: new AskedOrJittered(jitter) },
  );
  retries.onRetry((event) => {
    if (!('error' in event) || !(event.error instanceof AttemptFailure)) return;
    const { template, log } = event.error.how;
    o.metrics.upstreamRetry(template, o.lane);
    log().debug({ waitMs: event.delay }, 'upstream retry');
  });
  o.metrics.trackCircuit(o.lane, () => (breaker.state === CircuitState.Closed ? 0 : 1));
  const slots: BulkheadPolicy | undefined =
    o.concurrency === undefined ? undefined : bulkhead(o.concurrency, BULKHEAD_LINE);
  return {
    lane: o.lane,
    halfOpenAfterMs: o.halfOpenAfterMs,
    run: (attempt, signal) =>
      retries.execute(
        ({ attempt: n, signal: cut }) =>
          breaker.execute(() => (slots ? slots.execute(() => attempt(n), cut) : attempt(n))),
        signal,
      ),
  };
}

/** The wait the card service asked for when it did (`Retry-After`), else the jittered one. */
class AskedOrJittered implements IBackoffFactory<IRetryBackoffContext<unknown>> {
  constructor(private readonly jitter: IBackoffFactory<unknown>) {}

  next(context: IRetryBackoffContext<unknown>): IBackoff<IRetryBackoffContext<unknown>> {
    const jittered = this.jitter.next(context);
    const failure = 'error' in context.result ? context.result.error : undefined;
    const asked = failure instanceof AttemptFailure ? failure.how.waitAskedMs : undefined;
    return {
      duration: asked ?? jittered.duration,
      next: (later) => new AskedOrJittered(jittered).next(later),
    };
  }
}
