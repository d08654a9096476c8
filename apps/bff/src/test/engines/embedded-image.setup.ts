// Vitest's global set-up for the BFF's projects: two images of a new embedded cluster for the
// run, in temporary files each test file's engines start from (embedded.ts): one empty, for the
// tests of migrating, and one with every migration applied, which the app's and the stores' tests
// start from and then find nothing to apply (0.4 s of a loaded worker less for each of ~130).
// Made once for the run: the BFF's projects each set it up (the Node 24 pass runs two).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { TestProject } from 'vitest/node';
import { applyMigrations } from '../../platform/sql/migrations';
import { embeddedClusterImage } from '../../platform/sql/sql-engine';
import { oncePerRun } from './once-per-run';

/** The two images' files, made once for the run however many projects set them up. */
interface Images {
  dir: string;
  empty: string;
  migrated: string;
}
async function makeImages(): Promise<Images> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-embedded-image-'));
  const empty = join(dir, 'cluster.tar');
  const migrated = join(dir, 'migrated.tar');
  await writeFile(empty, Buffer.from(await (await embeddedClusterImage()).arrayBuffer()));
  const image = await embeddedClusterImage((engine) =>
    applyMigrations(engine, pino({ level: 'silent' })),
  );
  await writeFile(migrated, Buffer.from(await image.arrayBuffer()));
  return { dir, empty, migrated };
}

export default async function setup(project: TestProject) {
  const { made, teardown } = await oncePerRun(
    'cardConsoleTestEmbeddedImages',
    makeImages,
    (images) => rm(images.dir, { recursive: true, force: true }),
  );
  project.provide('embeddedClusterImage', made.empty);
  project.provide('migratedClusterImage', made.migrated);
  return teardown;
}
