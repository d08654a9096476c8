// The run's bundle of the BFF, as the tests that start its processes reach it (written by
// `bff-bundle.setup.ts`, production's entry points: `index.js`, `migrate.js`, …).
import { join } from 'node:path';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of the run's bundle of the BFF. */
    bffBundle: string;
  }
}

/** The path of `file` in the run's bundle (`index.js`, `migrate.js`, …). */
export function bundled(file: string): string {
  return join(inject('bffBundle'), file);
}
