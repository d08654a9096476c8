// Vitest's global set-up for the BFF's projects: one image of a new embedded cluster for the run,
// in a temporary file every test file's `memoryEngine()` starts from (embedded.ts).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { embeddedClusterImage } from '../../platform/sql/sql-engine';

export default async function setup(project: TestProject) {
  const dir = await mkdtemp(join(tmpdir(), 'cc-embedded-image-'));
  const file = join(dir, 'cluster.tar');
  await writeFile(file, Buffer.from(await (await embeddedClusterImage()).arrayBuffer()));
  project.provide('embeddedClusterImage', file);
  return () => rm(dir, { recursive: true, force: true });
}
