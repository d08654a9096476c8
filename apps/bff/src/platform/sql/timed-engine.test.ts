import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { unreachablePostgres } from '../../test/engines/sql-replicas';
import { parseSamples, sampleValue } from '../../test/scrape';
import { createPrometheusMetrics } from '../metrics/prometheus-metrics';
import { StoreUnavailableError } from '../store-unavailable';
import type { SqlEngine } from './sql-engine';
import { timedEngine } from './timed-engine';

let embedded: SqlEngine;
beforeAll(async () => {
  embedded = await migratedMemoryEngine();
}, 60_000);
afterAll(async () => embedded?.close());

const count = async (registry: Registry, operation: string, outcome: string) =>
  sampleValue(
    parseSamples(await registry.metrics()),
    'bff_store_operation_duration_seconds_count',
    {
      engine: 'postgres',
      operation,
      outcome,
    },
  );

describe('a store engine timed by its store', () => {
  it('counts each statement and each transaction by store and outcome, a statement inside a transaction as the transaction', async () => {
    const registry = new Registry();
    const engine = timedEngine(embedded, createPrometheusMetrics(registry), 'session');
    expect(await engine.query<{ n: number }>('SELECT 1 AS n')).toEqual([{ n: 1 }]);
    await engine.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await tx.query('SELECT 2');
    });
    await expect(engine.query('SELECT * FROM no_such_table')).rejects.toThrow();
    expect(await count(registry, 'session.query', 'ok')).toBe(1);
    expect(await count(registry, 'session.query', 'error')).toBe(1);
    expect(await count(registry, 'session.transaction', 'ok')).toBe(1);
  });

  it('a database that does not answer is counted as errors of the store that asked', async () => {
    const registry = new Registry();
    const down = await unreachablePostgres();
    try {
      const engine = timedEngine(down, createPrometheusMetrics(registry), 'rate_limit');
      await expect(engine.query('SELECT 1')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(engine.transaction(async () => {})).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      expect(await count(registry, 'rate_limit.query', 'error')).toBe(1);
      expect(await count(registry, 'rate_limit.transaction', 'error')).toBe(1);
    } finally {
      await down.close();
    }
  });
});
