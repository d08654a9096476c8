import { overviewQuerySchema, overviewSchema } from '@card-console/shared/api/insights';
import type { ApiRoutes } from '../../http/api-router';
import { who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import { sendJson } from '../../http/send-json';
import { parseQuery } from '../../http/validate';
import type { DayAggregateStore } from '../../platform/insights/day-aggregate-store';
import { compileSerializer } from '../../platform/schemas/compiled-serializer';
import { createOverviewService } from './overview-service';

export function insightsRoutes(
  deps: FeatureDeps,
  options: { store: DayAggregateStore; refreshMs: number },
): ApiRoutes {
  const overview = createOverviewService({ ...deps, ...options });
  const write = compileSerializer(overviewSchema);
  return {
    'GET /api/insights/overview': async (req, res) => {
      const query = parseQuery(overviewQuerySchema, req);
      sendJson(res, await overview.overview(who(req), query), 200, write);
    },
  };
}
