// The tests' in-memory embedded engine: started from one image of a new cluster, made once per
// Vitest run by `embedded-image.setup.ts`, instead of running PGlite's initdb for each of the
// hundreds of engines the tests open (4–8 s of CPU each against about 1 s from the image). The
// tests of the embedded engine's own opening (`platform/sql/`) still open new clusters.
import { readFile } from 'node:fs/promises';
import { inject } from 'vitest';
import { embeddedEngine, type SqlEngine } from '../../platform/sql/sql-engine';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file holding a new, empty embedded cluster's image. */
    embeddedClusterImage: string;
  }
}

let image: Promise<Blob> | undefined;

/** A new, empty embedded engine in memory, as `embeddedEngine` opens one without a directory. */
export async function memoryEngine(): Promise<SqlEngine> {
  image ??= readFile(inject('embeddedClusterImage')).then((bytes) => new Blob([bytes]));
  return embeddedEngine(undefined, { from: await image });
}
