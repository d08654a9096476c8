import { auditActions } from '@card-console/shared/api/audit';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PaceState } from '../pagination/pace';
import { createBackgroundWorkSeries } from './background-work-series';
import type { Metrics, UpstreamLane } from './metrics';
import { createOperationsSeries } from './operations-series';

/** Seconds: a proxied read is milliseconds, an export or a slow upstream call seconds. */
const REQUEST_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];
const ENGINE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
interface Children {
  count: ReturnType<Counter['labels']>;
  time: ReturnType<Histogram['labels']>;
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * `Metrics` as prom-client series in `registry` (one per process, made in index.ts; tests make
 * their own). The per-request series keep their label children in a map: prom-client hashes
 * a label object on every observation, and this runs on every request.
 */
export function createPrometheusMetrics(registry: Registry): Metrics {
  const registers = [registry];
  const requests = new Counter({
    name: 'bff_http_requests_total',
    help: 'Requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const requestSeconds = new Histogram({
    name: 'bff_http_request_duration_seconds',
    help: 'Time from a request to its last byte (or to the client leaving), by route template.',
    labelNames: ['method', 'route', 'status'],
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const refusals = new Counter({
    name: 'bff_rate_limit_refusals_total',
    help: 'Requests refused with 429, by route template and error code.',
    labelNames: ['route', 'code'],
    registers,
  });
  const upstreamCalls = new Counter({
    name: 'bff_upstream_calls_total',
    help: 'Calls to the card service (each with its retries), by operation and outcome.',
    labelNames: ['operation', 'outcome'],
    registers,
  });
  const upstreamSeconds = new Histogram({
    name: 'bff_upstream_call_duration_seconds',
    help: 'Time of one card-service call, retries and waits included.',
    labelNames: ['operation', 'outcome'],
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const retries = new Counter({
    name: 'bff_upstream_retries_total',
    help: 'Retries of card-service reads, by operation and lane (people, or the bulk walks).',
    labelNames: ['operation', 'lane'],
    registers,
  });
  const refused = new Counter({
    name: 'bff_upstream_circuit_refused_total',
    help: 'Card-service calls and retries an open circuit refused (the call failed instead).',
    labelNames: ['operation', 'lane'],
    registers,
  });
  const circuits = new Map<UpstreamLane, () => number>();
  new Gauge({
    name: 'bff_upstream_circuit_open',
    help: "Whether each lane's circuit to the card service is open (1) or closed (0) now.",
    labelNames: ['lane'],
    registers,
    collect() {
      for (const [lane, open] of circuits) this.set({ lane }, open());
    },
  });
  let pace: (() => PaceState) | undefined;
  const paceGauge = (name: string, help: string, read: (state: PaceState) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        if (pace) this.set(read(pace()));
      },
    });
  paceGauge(
    'bff_walk_pages_at_once',
    "Card-service pages the walks' pace lets run at once now (it grows while the service answers well, halves on a 429 or a slow answer).",
    (s) => s.limit,
  );
  paceGauge(
    'bff_walk_pages_in_flight',
    'Card-service pages the walks have in flight now.',
    (s) => s.inFlight,
  );
  paceGauge(
    'bff_walk_pages_waiting',
    'Pages of the walks waiting for their turn of the pace now.',
    (s) => s.waiting,
  );
  paceGauge(
    'bff_walk_pace_held',
    "Whether the walks' pace holds every page until the wait a 429 asked for has passed (1) or not (0).",
    (s) => (s.holdUntil > 0 ? 1 : 0),
  );
  paceGauge(
    'bff_walk_rate_replicas',
    "Replicas alive that share the card service's published rate limit, this one included: the walks here keep to that part of it (1 without DATABASE_URL or without a published limit).",
    (s) => s.replicas,
  );
  new Counter({
    name: 'bff_walk_rate_limited_total',
    help: "429s the card service answered (to any call), as the walks' pace heard them.",
    registers,
    collect() {
      if (!pace) return;
      this.reset();
      this.inc(pace().busy);
    },
  });
  const coalesced = new Counter({
    name: 'bff_upstream_coalesced_reads_total',
    help: 'Reads that shared an identical call already in flight instead of calling.',
    labelNames: ['operation'],
    registers,
  });
  const auditFailures = new Counter({
    name: 'bff_audit_write_failures_total',
    help: 'Audit records that could not be stored, by action.',
    labelNames: ['action'],
    registers,
  });
  // At 0 from the start: an alert's increase() misses a series' first sample.
  for (const action of auditActions) auditFailures.inc({ action }, 0);
  const engineSeconds = new Histogram({
    name: 'bff_store_operation_duration_seconds',
    help: 'Time of one PostgreSQL operation, by engine, operation and outcome.',
    labelNames: ['engine', 'operation', 'outcome'],
    buckets: ENGINE_BUCKETS,
    registers,
  });
  const exportsCut = new Counter({
    name: 'bff_csv_exports_cut_total',
    help: 'CSV exports broken off before their end, by reason.',
    labelNames: ['reason'],
    registers,
  });

  // Label children for the hot paths, made once per label set.
  const requestChildren = new Map<string, Children>();
  const upstreamChildren = new Map<string, Children>();

  return {
    ...createOperationsSeries(registry),
    ...createBackgroundWorkSeries(registry),
    observeRequest(method, route, status, seconds) {
      const m = KNOWN_METHODS.has(method) ? method : 'OTHER';
      const key = `${m} ${status} ${route}`;
      let child = requestChildren.get(key);
      if (!child) {
        const labels = { method: m, route, status: String(status) };
        child = { count: requests.labels(labels), time: requestSeconds.labels(labels) };
        requestChildren.set(key, child);
      }
      child.count.inc();
      child.time.observe(seconds);
    },
    rateLimited: (route, code) => refusals.inc({ route, code }),
    observeUpstream(operation, outcome, seconds) {
      const key = `${operation} ${outcome}`;
      let child = upstreamChildren.get(key);
      if (!child) {
        const labels = { operation, outcome };
        child = { count: upstreamCalls.labels(labels), time: upstreamSeconds.labels(labels) };
        upstreamChildren.set(key, child);
      }
      child.count.inc();
      child.time.observe(seconds);
    },
    upstreamRetry: (operation, lane) => retries.inc({ operation, lane }),
    circuitRefused: (operation, lane) => refused.inc({ operation, lane }),
    trackCircuit: (lane, open) => void circuits.set(lane, open),
    trackWalkPace: (state) => {
      pace = state;
    },
    coalescedRead: (operation) => coalesced.inc({ operation }),
    auditWriteFailed: (action) => auditFailures.inc({ action }),
    observeEngine: (engine, operation, seconds, ok) =>
      engineSeconds.observe({ engine, operation, outcome: ok ? 'ok' : 'error' }, seconds),
    exportCut: (reason) => exportsCut.inc({ reason }),
  };
}
