// One process at a time on the embedded engine's folder (DATA_DIR/transaction-index): the server
// running without DATABASE_URL holds this lock from start to stop, and `pnpm users
// --server-stopped` holds it while it works, so whichever comes second refuses, saying why,
// instead of both opening the engine (which one process only may). proper-lockfile makes the lock
// a directory (mkdir is atomic) whose time the holder touches every few seconds: one left by a
// process that died (SIGKILL, a crash) is taken over once it has not been touched for STALE_MS.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';

/** How long an untouched lock stays taken: a holder whose event loop stalls this long loses it. */
export const STALE_MS = 30_000;

/** Another process holds the folder; the message says who may and what to do. */
export class DataDirBusyError extends Error {
  override name = 'DataDirBusyError';
}

/** The folder the embedded engine (the index, notes, people, alerts) keeps its files in. */
export const embeddedStoreDir = (dataDir: string) => join(dataDir, 'transaction-index');

/** The lock's own path, beside the folder it guards. */
const embeddedStoreLockPath = (dataDir: string) => `${embeddedStoreDir(dataDir)}.lock`;

/**
 * Takes the lock on `dataDir`'s embedded engine, or throws DataDirBusyError with `busy` as its
 * message. `onLost` hears of a lock taken from this process (its folder removed, or the lock
 * not touched within STALE_MS). Resolves to the release.
 */
export async function lockEmbeddedStore(
  dataDir: string,
  options: {
    busy: string;
    onLost: (error: Error) => void;
    /**
     * How long to keep trying while another holds it (a server restarted after a crash waits
     * for the dead one's lock to go stale), told first with `waiting`. Default: refuse at once.
     */
    waitMs?: number;
    waiting?: () => void;
  },
): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const lock = (waitMs: number) =>
    lockfile.lock(embeddedStoreDir(dataDir), {
      lockfilePath: embeddedStoreLockPath(dataDir),
      realpath: false,
      stale: STALE_MS,
      onCompromised: options.onLost,
      ...(waitMs > 0
        ? {
            retries: {
              retries: Math.ceil(waitMs / 1000),
              factor: 1,
              minTimeout: 1000,
              maxTimeout: 1000,
            },
          }
        : {}),
    });
  try {
    const release = await lock(0).catch(async (error: unknown) => {
      if ((error as { code?: string }).code !== 'ELOCKED' || !options.waitMs) throw error;
      options.waiting?.();
      return lock(options.waitMs);
    });
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await release().catch(() => {});
    };
  } catch (error) {
    if ((error as { code?: string }).code === 'ELOCKED') {
      throw new DataDirBusyError(options.busy, { cause: error });
    }
    throw error;
  }
}
