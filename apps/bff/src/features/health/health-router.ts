import { Router } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../http/app-error';
import { sendJson } from '../../http/send-json';

export interface ReadinessProbe {
  /** Throws when the upstream cannot serve requests now. */
  checkReady(requestId: string): Promise<void>;
}

/** /healthz: the process answers. /readyz: it can also reach the Card Program Service. */
export function createHealthRouter(upstream: ReadinessProbe, logger: Logger): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, { status: 'ok' });
  });
  router.get('/readyz', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    try {
      await upstream.checkReady(req.requestId);
    } catch (error) {
      logger.warn({ err: error, requestId: req.requestId }, 'not ready: upstream check failed');
      throw new AppError(503, 'not_ready', 'The card service is not reachable.', {
        retryAfterSeconds: 5,
      });
    }
    sendJson(res, { status: 'ready' });
  });
  return router;
}
