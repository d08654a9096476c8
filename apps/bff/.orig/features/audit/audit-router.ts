import { auditListQuerySchema } from '@card-console/shared/api/audit';
import { Router } from 'express';
import type { AuditStore } from '../../http/deps';
import { parseQuery } from '../../http/validate';

const pageSize = 50;

/** GET /api/audit (admins): newest first, `cursor` from the previous page. */
export function createAuditRouter(audit: AuditStore): Router {
  const router = Router();
  router.get('/api/audit', async (req, res) => {
    const query = parseQuery(auditListQuerySchema, req);
    res.json(await audit.list({ cursor: query.cursor, limit: pageSize }));
  });
  return router;
}
