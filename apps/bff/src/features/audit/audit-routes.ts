import { auditListQuerySchema } from '@card-console/shared/api/audit';
import type { ApiRoutes } from '../../http/api-router';
import type { AuditStore } from '../../http/deps';
import { sendJson } from '../../http/send-json';
import { parseQuery } from '../../http/validate';

const pageSize = 50;

/** GET /api/audit (admins): filtered, newest first, `cursor` from the previous page. */
export function auditRoutes(audit: AuditStore): ApiRoutes {
  return {
    'GET /api/audit': async (req, res) => {
      const { cursor, ...filter } = parseQuery(auditListQuerySchema, req);
      sendJson(res, await audit.list({ cursor, limit: pageSize, filter }));
    },
  };
}
