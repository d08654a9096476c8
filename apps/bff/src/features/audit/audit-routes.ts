import { auditExportQuerySchema, auditListQuerySchema } from '@card-console/shared/api/audit';
import type { ApiRoutes } from '../../http/api-router';
import { who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import { sendJson } from '../../http/send-json';
import { parseQuery } from '../../http/validate';
import { exportStreamContext, withExportSlot } from '../transactions/export-response';
import { withCard } from './audit-card';
import {
  auditCsvHeader,
  auditCsvPages,
  auditExportFileName,
  describeExport,
  EXPORT_PAGE_SIZE,
} from './audit-export';
import { streamAuditCsv } from './stream-audit-csv';

const pageSize = 50;

type AuditRouteDeps = Pick<
  FeatureDeps,
  | 'audit'
  | 'cardDirectory'
  | 'clock'
  | 'logger'
  | 'metrics'
  | 'cutOff'
  | 'exportSlots'
  | 'exportReceipts'
>;

/**
 * GET /api/audit (admins): filtered, newest first, `cursor` from the previous page.
 * GET /api/audit/export.csv (admins): every record the same filters match, as CSV.
 */
export function auditRoutes(deps: AuditRouteDeps): ApiRoutes {
  const { audit, cardDirectory } = deps;
  return {
    'GET /api/audit': async (req, res) => {
      const { cursor, ...filter } = parseQuery(auditListQuerySchema, req);
      const [page] = await Promise.all([
        audit.list({ cursor, limit: pageSize, filter }),
        cardDirectory.ready(),
      ]);
      sendJson(res, { ...page, items: page.items.map((r) => withCard(r, cardDirectory)) });
    },

    // HEAD reaches this handler too (the route table answers HEAD with the GET row).
    'GET /api/audit/export.csv': async (req, res) => {
      const { tz, ...filter } = parseQuery(auditExportQuerySchema, req);
      const person = who(req);
      const fileName = auditExportFileName(filter, tz, deps.clock.now());
      const headers = {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="${fileName}"`,
        'Cache-Control': 'no-store',
      };
      // The headers a download starts with, and nothing read or exported: not audited.
      if (req.method === 'HEAD') {
        res.status(200).set(headers).end();
        return;
      }
      const stream = exportStreamContext(req, res, person, deps);
      await withExportSlot(deps, person, async () => {
        // Recorded before any record leaves: an export that cannot be audited does not run.
        await audit.append({
          actor: person.actor.email,
          role: person.actor.role,
          action: 'audit.export',
          outcome: 'success',
          detail: describeExport(filter, tz),
          requestId: person.requestId,
        });
        const first = await audit.list({ limit: EXPORT_PAGE_SIZE, filter });
        res.status(200).set(headers);
        await cardDirectory.ready();
        const pages = auditCsvPages(audit, filter, tz, first, cardDirectory);
        await streamAuditCsv(res, auditCsvHeader(tz), pages, stream);
      });
    },
  };
}
