import { defineFeature } from '../../core/endpoint';
import type { DayAggregateStore } from '../../platform/day-aggregates/day-aggregate-store';
import { who } from '../../platform/sessions/who';
import { type IndexSearchDeps, indexSearchOf } from '../transaction-index';
import { createOverviewService } from './overview-service';

export interface OverviewDeps extends IndexSearchDeps {
  /** The Overview's per-day aggregates (memory, or PostgreSQL shared by replicas). */
  dayAggregates: DayAggregateStore;
  /** How old a day's aggregate may be before it is walked again. */
  insightsRefreshMs: number;
}

export const overviewFeature = defineFeature(
  'overview',
  (deps: OverviewDeps) =>
    createOverviewService({
      ...deps,
      store: deps.dayAggregates,
      refreshMs: deps.insightsRefreshMs,
      index: indexSearchOf(deps),
    }),
  (endpoint) => [
    endpoint('overview.get', {
      summary: "The Overview: a period's totals, days, categories, merchants and declines",
      example: '/api/overview?from=2026-01-01&to=2026-01-31&tz=UTC',
      handler: ({ req, services, query }) => services.overview(who(req), query),
    }),
  ],
);
