import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { type BuildInfo, buildInfo } from './build-info';

/**
 * prom-client's default gauges named `…_total`: the number of active handles, requests and
 * resources. A `_total` suffix promises a counter (`rate()` over it, `promtool check metrics`
 * refuses a gauge so named), and each is only the sum of its per-type gauge beside it
 * (`nodejs_active_handles{type}`), so they go: `sum(nodejs_active_handles)` is the same number.
 * prom-client has no option to leave them out or rename them alone (`prefix` renames all).
 */
export const MISNAMED_DEFAULT_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * The process's one registry (index.ts): Node's default series without the misnamed gauges,
 * and `card_console_build_info`. The BFF's own series are added by `createPrometheusMetrics`.
 */
export function createProcessRegistry(build: BuildInfo = buildInfo()): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED_DEFAULT_GAUGES) registry.removeSingleMetric(name);
  new Gauge({
    name: 'card_console_build_info',
    help: 'Always 1; the labels say which version, commit (when built from git) and Node.js run.',
    labelNames: ['version', 'commit', 'node'],
    registers: [registry],
  }).set({ ...build }, 1);
  return registry;
}
