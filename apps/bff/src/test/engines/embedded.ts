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

/**
 * An image's bytes as PGlite reads them (`loadDataDir`: it asks for them once, then copies each
 * file of the tar into the engine's own memory), handed over as they are. Read back from a
 * `Blob` of them, the 42 MB of the migrated image are streamed in chunks and joined again on
 * Node 20: an engine's opening took 0.70–0.84 s of CPU that way and 0.57–0.59 s this way (6
 * engines a round, 3 rounds each, alternating), and a run opens hundreds. The bytes are never
 * written: the copy of each file is the engine's (`embedded-image.test.ts`). Only
 * `arrayBuffer()` is read (its `size` and `stream()` are those of an empty Blob): it is made for
 * `loadDataDir` alone.
 */
class ImageBytes extends Blob {
  readonly #bytes: ArrayBuffer;
  constructor(bytes: ArrayBuffer) {
    super([]);
    this.#bytes = bytes;
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.#bytes);
  }
}

const images = new Map<string, Promise<ArrayBuffer>>();

/** The image in `file`, read once a worker. */
function image(file: string): Promise<ArrayBuffer> {
  let read = images.get(file);
  if (!read) {
    read = readFile(file).then((bytes) =>
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    );
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
  const bytes = await image(inject('embeddedClusterImage'));
  // A thread of its own is sent a copy (a structured clone keeps a Blob's own bytes only).
  const from = thread === 'this' ? new ImageBytes(bytes) : new Blob([bytes]);
  return embeddedEngine(undefined, { from, thread });
}

/**
 * A new embedded engine in memory with this build's migrations applied, as the embedded engine
 * holds its schema once it has opened: for the tests of what runs on the schema, not of migrating
 * to it. Applying the migrations to it again finds nothing to apply.
 */
export async function migratedMemoryEngine(): Promise<SqlEngine> {
  return embeddedEngine(undefined, {
    from: new ImageBytes(await image(inject('migratedClusterImage'))),
  });
}
