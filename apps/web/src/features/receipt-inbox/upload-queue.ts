import type { QueryClient } from '@tanstack/react-query';
import { isRetryableApiError } from '../../lib/api-error';
import { MAX_AUTO_RETRY_SECONDS } from '../../lib/retry-policy';
import { type InboxList, inboxListKey } from './api/get-inbox';
import { inboxChanged } from './api/inbox-changed';
import { uploadToInbox } from './api/upload-to-inbox';
import { fileProblem } from './inbox-file';

export interface Upload {
  key: number;
  name: string;
  state: 'waiting' | 'uploading' | 'done' | 'failed';
  /** Why it was not added. */
  error?: string;
  /** Failed in a way another try may mend: the file is kept for "Try again". */
  canRetry?: boolean;
}

export interface UploadsSnapshot {
  uploads: readonly Upload[];
  /** The server asked to wait (429, 503) until then before sending more. */
  pausedUntil: number | undefined;
}

/** Files sent at once: what the server reads of one person's at once (a third is a 429). */
export const UPLOADS_AT_ONCE = 2;
/** Tries of one file the server asked to wait for (429, 503) before it is given up. */
const MAX_TRIES = 3;

/**
 * The files a person dropped or chose, sent at most three at a time. It lives beside the app's
 * query cache, not in the screen: leaving the screen does not drop the files still queued, and
 * coming back shows how they went. A file the BFF cannot take anyway (too big, empty) is
 * refused here without a request; every other failure stays by name with the server's words
 * (and a "Try again") until dismissed. A 429 or 503 pauses the queue for as long as the server
 * asks, when that is short enough to sit out. While files are still to send, closing the tab
 * asks first. Nothing chosen is dropped without saying so.
 */
export class UploadQueue {
  private snapshot: UploadsSnapshot = { uploads: [], pausedUntil: undefined };
  private readonly listeners = new Set<() => void>();
  private readonly queue: { key: number; file: File; tries: number }[] = [];
  /** Files of failures another try may mend, by key. */
  private readonly kept = new Map<number, File>();
  private active = 0;
  private nextKey = 0;
  private resumeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly queryClient: QueryClient) {}

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = () => this.snapshot;

  /** Queues `files` (what finished before is cleared, failures kept); returns at once. */
  add(files: readonly File[]) {
    if (files.length === 0) return;
    const added: Upload[] = files.map((file) => {
      const key = this.nextKey++;
      const problem = fileProblem(file);
      if (problem) return { key, name: file.name, state: 'failed', error: problem };
      this.queue.push({ key, file, tries: 0 });
      return { key, name: file.name, state: 'waiting' };
    });
    this.update({
      uploads: [...this.snapshot.uploads.filter((u) => u.state !== 'done'), ...added],
    });
    this.pump();
  }

  /** Sends a failed file again. */
  retry(key: number) {
    const file = this.kept.get(key);
    if (!file) return;
    this.kept.delete(key);
    this.queue.push({ key, file, tries: 0 });
    this.set(key, { state: 'waiting', error: undefined, canRetry: undefined });
    this.pump();
  }

  /** Forgets what has finished, failures too. */
  dismiss() {
    for (const u of this.snapshot.uploads) if (u.state === 'failed') this.kept.delete(u.key);
    this.update({
      uploads: this.snapshot.uploads.filter(
        (u) => u.state === 'waiting' || u.state === 'uploading',
      ),
    });
  }

  private pending() {
    return this.queue.length + this.active;
  }

  private pump() {
    const { pausedUntil } = this.snapshot;
    if (pausedUntil !== undefined && pausedUntil > Date.now()) return;
    while (this.active < UPLOADS_AT_ONCE && this.queue.length > 0) {
      void this.send(this.queue.shift() as { key: number; file: File; tries: number });
    }
    this.guardUnload();
  }

  private async send(next: { key: number; file: File; tries: number }) {
    this.active++;
    this.set(next.key, { state: 'uploading' });
    try {
      const item = await uploadToInbox(next.file);
      this.set(next.key, { state: 'done' });
      // Shown at once; the list itself is asked for again when the batch is done.
      this.queryClient.setQueryData<InboxList>(inboxListKey, (list) =>
        !list || list.items.some((i) => i.id === item.id)
          ? list
          : {
              items: [item, ...list.items],
              counts: { ...list.counts, [item.status]: list.counts[item.status] + 1 },
            },
      );
    } catch (error) {
      const wait = isRetryableApiError(error) ? (error.retryAfterSeconds ?? 5) : undefined;
      if (
        isRetryableApiError(error) &&
        wait !== undefined &&
        wait <= MAX_AUTO_RETRY_SECONDS &&
        ++next.tries < MAX_TRIES
      ) {
        this.pauseUntil(error.receivedAt + wait * 1000);
        this.queue.unshift(next);
        this.set(next.key, { state: 'waiting' });
      } else {
        this.kept.set(next.key, next.file);
        this.set(next.key, {
          state: 'failed',
          error: error instanceof Error ? error.message : String(error),
          canRetry: true,
        });
      }
    } finally {
      this.active--;
    }
    if (this.pending() === 0) void inboxChanged(this.queryClient);
    this.pump();
  }

  private pauseUntil(at: number) {
    const until = Math.max(at, this.snapshot.pausedUntil ?? 0);
    this.update({ pausedUntil: until });
    clearTimeout(this.resumeTimer);
    this.resumeTimer = setTimeout(
      () => {
        this.update({ pausedUntil: undefined });
        this.pump();
      },
      Math.max(0, until - Date.now()),
    );
  }

  private set(key: number, change: Partial<Upload>) {
    this.update({
      uploads: this.snapshot.uploads.map((u) => (u.key === key ? { ...u, ...change } : u)),
    });
  }

  private update(change: Partial<UploadsSnapshot>) {
    this.snapshot = { ...this.snapshot, ...change };
    for (const listener of this.listeners) listener();
  }

  private unloadGuarded = false;
  private readonly onBeforeUnload = (event: BeforeUnloadEvent) => {
    event.preventDefault();
  };

  /** Closing the tab while files are still to send asks first. */
  private guardUnload() {
    const guard = this.pending() > 0;
    if (guard === this.unloadGuarded) return;
    this.unloadGuarded = guard;
    if (guard) window.addEventListener('beforeunload', this.onBeforeUnload);
    else window.removeEventListener('beforeunload', this.onBeforeUnload);
  }
}

/** One queue per query cache: the app has one; each test its own. */
const queues = new WeakMap<QueryClient, UploadQueue>();

export function uploadQueueFor(queryClient: QueryClient): UploadQueue {
  let queue = queues.get(queryClient);
  if (!queue) {
    queue = new UploadQueue(queryClient);
    queues.set(queryClient, queue);
  }
  return queue;
}
