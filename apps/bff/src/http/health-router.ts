import { Router } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../core/app-error';
import type { Clock } from '../core/clock';
import {
  type DependencyName,
  dependencyLabel,
  NotReadyError,
  notReadyReason,
  type ReadinessCheck,
} from '../features/health/readiness';
import type { Metrics } from '../platform/metrics/metrics';
import { newRequestId } from '../platform/request-ids';
import { createCoalescer } from '../upstream/coalescer';

/**
 * How long one check's outcome answers /readyz. The route is open to anyone, so without this
 * every probe, or anyone on the network, could make the BFF call the card service (spending its
 * rate limit) or its engines at will; a load balancer probing every second or two still sees a
 * change within it.
 */
export const READY_CHECK_TTL_MS = 2_000;
/**
 * A check still running after this is a failure: a probe answers in bounded time even when an
 * engine hangs (the upstream's own readiness deadline is 3 s).
 */
export const READY_CHECK_TIMEOUT_MS = 4_000;

export interface HealthOptions {
  /** Every dependency /readyz covers, each checked at once and reported by name. */
  checks: ReadinessCheck[];
  logger: Logger;
  clock: Clock;
  /** True once shutdown has begun: /readyz and /readyz/replica then fail so a balancer stops sending. */
  isDraining?: () => boolean;
  /** Reports each dependency's readiness at every scrape (`bff_dependency_ready`). */
  metrics?: Metrics;
}

/**
 * /healthz: the process answers. /readyz: every dependency can serve, and no shutdown is under
 * way (for operators and alerts). /readyz/replica: this replica can take requests, for the load
 * balancer: it asks no dependency, since PostgreSQL and the card service are shared by
 * every replica and one outage of theirs must not take them all out of the pool (the SPA would
 * not even load; the routes that need the missing one answer their own 503).
 */
export function createHealthRouter(options: HealthOptions): Router {
  const { logger, clock } = options;
  const checks = options.checks.map((check) => sharedCheck(check, logger, clock));
  // The same shared, briefly cached checks answer the metrics: alerts see every dependency
  // whether or not anything probes /readyz.
  options.metrics?.trackReadiness(async () => {
    const requestId = newRequestId();
    const results = await Promise.all(checks.map((run) => run(requestId)));
    return results.map((r) => ({ dependency: r.name, ready: r.reason === undefined }));
  });
  const leaving = () => {
    if (options.isDraining?.()) {
      throw new AppError(503, 'shutting_down', 'Card Console is shutting down.', {
        retryAfterSeconds: 5,
      });
    }
  };
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok' });
  });
  router.get('/readyz/replica', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    leaving();
    res.json({ status: 'serving' });
  });
  router.get('/readyz', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    leaving();
    const results = await Promise.all(checks.map((run) => run(req.requestId, req.trace?.traceId)));
    const states = Object.fromEntries(results.map((r) => [r.name, r.reason ?? 'ok']));
    const failing = results.filter((r) => r.reason !== undefined);
    if (failing.length) {
      throw new AppError(
        503,
        'not_ready',
        `Not ready: ${failing.map((r) => r.reason).join('; ')}.`,
        { retryAfterSeconds: 5, extensions: { checks: states } },
      );
    }
    res.json({ status: 'ready', checks: states });
  });
  return router;
}

interface CheckResult {
  name: DependencyName;
  /** Why the dependency is not ready; undefined when it is. */
  reason?: string;
}

/**
 * One run of a check at a time, shared by every probe that arrives while it runs, and its
 * outcome (ready or not) reused for READY_CHECK_TTL_MS after it ends.
 */
function sharedCheck(check: ReadinessCheck, logger: Logger, clock: Clock) {
  const runs = createCoalescer();
  let last: { result: CheckResult; at: number } | undefined;
  const run = async (requestId: string, traceId?: string): Promise<CheckResult> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new NotReadyError(`${dependencyLabel(check.name)} did not answer in time`)),
        READY_CHECK_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([Promise.resolve().then(() => check.check(requestId)), timeout]);
      return { name: check.name };
    } catch (error) {
      const reason = notReadyReason(check.name, error);
      logger.warn(
        { err: error, requestId, traceId, dependency: check.name },
        `not ready: ${reason}`,
      );
      return { name: check.name, reason };
    } finally {
      clearTimeout(timer);
    }
  };
  return async (requestId: string, traceId?: string): Promise<CheckResult> => {
    if (last && clock.now() - last.at < READY_CHECK_TTL_MS) return last.result;
    const result = await runs.run('check', () => run(requestId, traceId));
    last = { result, at: clock.now() };
    return result;
  };
}
