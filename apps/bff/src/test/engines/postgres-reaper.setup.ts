// Vitest's global set-up for the BFF's projects: a registry where every PostgreSQL cluster the
// run's files start is listed (engines/postgres.ts), and, when the run ends, any server still
// running stopped and its folder removed. A file removes its own cluster in its `afterAll`; one
// whose `afterAll` timed out, or whose worker ended first, would otherwise leave its server
// running after the run. The first of the projects to set it up owns it (they share one run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLUSTER_REGISTRY_ENV, reapClusters } from './postgres';

export default function setup() {
  if (process.env[CLUSTER_REGISTRY_ENV]) return;
  const registry = mkdtempSync(join(tmpdir(), 'cc-pg-registry-'));
  // Set before the workers start, which inherit it.
  process.env[CLUSTER_REGISTRY_ENV] = registry;
  return async () => {
    const stopped = await reapClusters(registry);
    rmSync(registry, { recursive: true, force: true });
    delete process.env[CLUSTER_REGISTRY_ENV];
    if (stopped.length > 0) {
      console.warn(
        `Stopped ${stopped.length} PostgreSQL server(s) a test file left running: ${stopped.join(', ')}`,
      );
    }
  };
}
