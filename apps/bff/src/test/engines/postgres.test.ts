// The tests' PostgreSQL clusters and the run's registry of them (postgres-reaper.setup.ts): a
// cluster a file left running is stopped and removed when the run ends; one the file destroyed
// is not listed any more.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { reapClusters, startPostgres } from './postgres';

/** Whether the server at `url` answers a query. */
async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const registries: string[] = [];
function newRegistry(): string {
  const registry = mkdtempSync(join(tmpdir(), 'cc-pg-registry-test-'));
  registries.push(registry);
  return registry;
}
afterEach(async () => {
  for (const registry of registries.splice(0)) {
    await reapClusters(registry);
    rmSync(registry, { recursive: true, force: true });
  }
});

describe('the run’s registry of PostgreSQL clusters', () => {
  it('stops a cluster that was left running and removes its folder', async () => {
    const registry = newRegistry();
    const cluster = await startPostgres({ registry });
    expect(await answers(cluster.adminUrl)).toBe(true);
    const listed = readdirSync(registry);
    expect(listed).toHaveLength(1);
    const dir = readFileSync(join(registry, listed[0] ?? ''), 'utf8');
    expect(existsSync(join(dir, 'data', 'postmaster.pid'))).toBe(true);

    expect(await reapClusters(registry)).toEqual([dir]);
    expect(await answers(cluster.adminUrl)).toBe(false);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(registry)).toEqual([]);
  });

  it('forgets a cluster its file destroyed, and a stopped one is removed without a stop', async () => {
    const registry = newRegistry();
    const destroyed = await startPostgres({ registry });
    await destroyed.destroy();
    expect(readdirSync(registry)).toEqual([]);

    const stopped = await startPostgres({ registry });
    await stopped.stop();
    const [entry] = readdirSync(registry);
    const dir = readFileSync(join(registry, entry ?? ''), 'utf8');
    expect(await reapClusters(registry)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(registry)).toEqual([]);
  });
});
