import { defineFeature } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import type { FeatureDeps } from '../feature-deps';
import { exportStreamContext, withExportSlot } from '../transactions';
import { withCard } from './audit-card';
import {
  auditCsvHeader,
  auditCsvPages,
  auditExportFileName,
  describeExport,
  EXPORT_PAGE_SIZE,
} from './audit-export';
import { shownRecord } from './audit-shown';
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

export const auditFeature = defineFeature(
  'audit',
  (deps: AuditRouteDeps) => deps,
  (endpoint) => [
    endpoint('audit.list', {
      summary: 'A page of the audit trail, filtered, newest first',
      attempted: 'audit.view',
      example: '/api/audit',
      handler: async ({ services: { audit, cardDirectory }, query }) => {
        const { cursor, ...filter } = query;
        const [page] = await Promise.all([
          audit.list({ cursor, limit: pageSize, filter }),
          cardDirectory.ready(),
        ]);
        return {
          ...page,
          items: page.items.map((r) => withCard(shownRecord(r), cardDirectory)),
        };
      },
    }),
    endpoint('audit.exportCsv', {
      summary: 'Every audit record the same filters match, as CSV (audited)',
      attempted: 'audit.export',
      example: '/api/audit/export.csv?tz=Europe/Paris',
      // HEAD reaches this handler too (Express answers HEAD with the GET route).
      handler: async ({ req, res, services: deps, query }) => {
        const { audit, cardDirectory } = deps;
        const { tz, ...filter } = query;
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
        await withExportSlot(deps, person, res, async () => {
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
    }),
  ],
);
