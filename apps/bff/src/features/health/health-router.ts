import { Router } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../http/app-error';
import type { Clock } from '../../http/deps';
import { sendJson } from '../../http/send-json';
import { createCoalescer } from '../../upstream/coalescer';

export interface ReadinessProbe {
  /** Throws when the upstream cannot serve requests now. */
  checkReady(requestId: string): Promise<void>;
}

/**
 * How long one upstream check answers /readyz. The route is open to anyone, so without this
 * every probe, or anyone on the network, could make the BFF call the card service and spend
 * its rate limit; a load balancer probing every second or two still sees a change within it.
 */
export const READY_CHECK_TTL_MS = 2_000;

/** /healthz: the process answers. /readyz: it can also reach the Card Program Service. */
export function createHealthRouter(upstream: ReadinessProbe, logger: Logger, clock: Clock): Router {
  const ready = sharedReadiness(upstream, logger, clock);
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, { status: 'ok' });
  });
  router.get('/readyz', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (!(await ready(req.requestId))) {
      throw new AppError(503, 'not_ready', 'The card service is not reachable.', {
        retryAfterSeconds: 5,
      });
    }
    sendJson(res, { status: 'ready' });
  });
  return router;
}

/**
 * One upstream check at a time, shared by every probe that arrives while it runs, and its
 * outcome (ready or not) reused for READY_CHECK_TTL_MS after it ends.
 */
function sharedReadiness(upstream: ReadinessProbe, logger: Logger, clock: Clock) {
  const checks = createCoalescer();
  let last: { ok: boolean; at: number } | undefined;
  const check = (requestId: string) =>
    upstream.checkReady(requestId).then(
      () => true,
      (error: unknown) => {
        logger.warn({ err: error, requestId }, 'not ready: upstream check failed');
        return false;
      },
    );
  return async (requestId: string): Promise<boolean> => {
    if (last && clock.now() - last.at < READY_CHECK_TTL_MS) return last.ok;
    const ok = await checks.run('ready', () => check(requestId));
    last = { ok, at: clock.now() };
    return ok;
  };
}
