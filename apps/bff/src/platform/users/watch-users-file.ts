// Keeps a running BFF's users in step with its users file: `pnpm users add/remove/disable`
// (or an editor, or a configuration manager) take effect without a restart.
import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { type FSWatcher, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { type Metrics, noMetrics } from '../metrics/metrics';
import type { PersonDirectory } from './person-directory';
import { parseUsersFile, type User } from './user-directory';

/**
 * Where a read file goes: the users file in memory (`UserDirectory`) puts it in place; the
 * people store imports the people it has never imported (features/people).
 */
export interface UsersFileTarget extends Pick<PersonDirectory, 'counts'> {
  replaceUsers(users: User[]): void | Promise<void>;
}

export interface UsersFileWatcher {
  /** Reads the file now and puts it in place if it is valid; never rejects. */
  reload(): Promise<void>;
  close(): void;
}

export interface WatchUsersFileOptions {
  directory: UsersFileTarget;
  file: string;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Quiet time after the last change before reading, so a file being written is read once. */
  debounceMs?: number;
  /** Where SIGHUP arrives (the process; a test passes its own emitter). */
  signals?: Pick<EventEmitter, 'on' | 'off'>;
  /** Each read that changed something: put in place, or why not (`bff_users_file_*`). */
  metrics?: Pick<Metrics, 'usersFileRead'>;
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * Reloads the users file when it changes, and on SIGHUP. The file's directory is watched,
 * not the file: `pnpm users` and most editors replace the file by renaming a new one over it,
 * which a watch on the old file would not see after the first time (and a Kubernetes
 * ConfigMap swaps a symlink beside it). Any change there leads to a read after a quiet
 * `debounceMs`, and the users are replaced only when the file's content differs from what
 * was last put in place; SIGHUP always re-reads. A file that is missing or fails its checks
 * leaves the last good users in place and logs an error (never the file's content).
 */
export function watchUsersFile(options: WatchUsersFileOptions): UsersFileWatcher {
  const { directory, file, logger } = options;
  const debounceMs = options.debounceMs ?? 250;
  const signals = options.signals ?? process;
  const metrics = options.metrics ?? noMetrics;
  let current: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  // One read at a time, in order: the last change seen is the last one applied.
  let queue: Promise<void> = Promise.resolve();

  const apply = async (force: boolean, first = false) => {
    let text: string | undefined;
    let code: string | undefined;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    }
    // A problem is reported once, not again at every unrelated change beside the file.
    const seen = text === undefined ? `error:${code}` : digest(text);
    if (!force && seen === current) return;
    current = seen;
    if (text === undefined) {
      metrics.usersFileRead('unreadable');
      logger.error(
        { file, code },
        'users file not reloaded: cannot read it; keeping the last good one',
      );
      return;
    }
    let users: User[];
    try {
      users = parseUsersFile(text, file);
    } catch (error) {
      metrics.usersFileRead('invalid');
      logger.error(
        { file, reason: (error as Error).message },
        'users file not reloaded: it failed its checks; keeping the last good one',
      );
      return;
    }
    try {
      await directory.replaceUsers(users);
    } catch (error) {
      // The people store could not take it (unreachable): read again at the next change.
      current = undefined;
      metrics.usersFileRead('invalid');
      logger.error(
        { file, reason: (error as Error).message },
        'users file not imported: the people store failed; it is read again at the next change',
      );
      return;
    }
    metrics.usersFileRead('applied');
    if (first) return;
    const counts = await Promise.resolve()
      .then(() => directory.counts())
      .catch(() => ({}));
    logger.info({ file, ...counts }, 'users file reloaded');
  };

  const reload = (force: boolean) => {
    queue = queue.then(() => (closed ? undefined : apply(force)));
    return queue;
  };

  const onChange = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void reload(false), debounceMs);
  };
  const onSignal = () => {
    logger.info({ file }, 'SIGHUP: reloading the users file');
    void reload(true);
  };

  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), { persistent: false }, onChange);
    watcher.on('error', (error) => {
      logger.warn(
        { file, reason: error.message },
        'users file: watching stopped; SIGHUP still reloads',
      );
    });
  } catch (error) {
    logger.warn(
      { file, reason: (error as Error).message },
      'users file: cannot watch; SIGHUP still reloads',
    );
  }
  signals.on('SIGHUP', onSignal);
  // Read once now, quietly when valid: the file may have changed between start-up's read
  // and the watch beginning, and later events compare against what this puts in place.
  queue = apply(false, true);

  return {
    reload: () => reload(true),
    close() {
      closed = true;
      clearTimeout(timer);
      watcher?.close();
      signals.off('SIGHUP', onSignal);
    },
  };
}
