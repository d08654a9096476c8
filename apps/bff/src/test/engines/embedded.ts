// The tests' in-memory embedded engines: started from images of a new cluster, made once per
// Vitest run by `embedded-image.setup.ts`, instead of running PGlite's initdb for each of the
// hundreds of engines the tests open (4–8 s of CPU each against about 1 s from an image). The
// tests of the embedded engine's own opening (`platform/sql/`) still open new clusters.
import { readFile } from 'node:fs/promises';
import { inject } from 'vitest';
import { embeddedEngine, type SqlEngine } from '../../platform/sql/sql-engine';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file holding a new, empty embedded cluster's image. */
    embeddedClusterImage: string;
    /** The file holding a new cluster's image with every embedded migration applied. */
    migratedClusterImage: string;
  }
}

const images = new Map<string, Promise<Blob>>();

function image(file: string): Promise<Blob> {
  let read = images.get(file);
  if (!read) {
    read = readFile(file).then((bytes) => new Blob([bytes]));
    images.set(file, read);
  }
  return read;
}

/**
 * A new, empty embedded engine in memory, as `embeddedEngine` opens one without a directory: on
 * this thread, or on its own (`thread: 'worker'`, as the BFF opens it).
 */
export async function memoryEngine({
  thread = 'this',
}: {
  thread?: 'this' | 'worker';
} = {}): Promise<SqlEngine> {
  return embeddedEngine(undefined, { from: await image(inject('embeddedClusterImage')), thread });
}

/**
 * A new embedded engine in memory with this build's migrations applied, as the embedded engine
 * holds its schema once it has opened: for the tests of what runs on the schema, not of migrating
 * to it. Applying the migrations to it again finds nothing to apply.
 */
export async function migratedMemoryEngine(): Promise<SqlEngine> {
  return embeddedEngine(undefined, { from: await image(inject('migratedClusterImage')) });
}
