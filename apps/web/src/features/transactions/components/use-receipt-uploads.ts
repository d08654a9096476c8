import { useEffect, useRef, useState } from 'react';
import { isApiError, isRetryableApiError } from '../../../lib/api-error';
import { MAX_AUTO_RETRY_SECONDS } from '../../../lib/retry-policy';
import { useUploadReceipt } from '../api/upload-receipt';
import { fileProblem } from '../receipt-file';

export interface Upload {
  key: number;
  name: string;
  state: 'waiting' | 'uploading' | 'done' | 'failed';
  /** Why it was not attached. */
  error?: string;
}

/** Tries of one file the server asked to wait for (429, 503) before it is given up. */
const MAX_TRIES = 3;
let nextKey = 0;

const sleepUntil = (at: number) =>
  new Promise<void>((done) => setTimeout(done, Math.max(0, at - Date.now())));

/**
 * The files a person chose, attached one after another. A file the BFF cannot take anyway (too
 * big, empty) is refused here without a request; every other failure shows by name with the
 * server's words. A 429 or 503 pauses the queue for as long as the server asks (`pausedUntil`),
 * when that is short enough to sit out. Nothing chosen is dropped without saying so.
 */
export function useReceiptUploads(transactionId: string) {
  const upload = useUploadReceipt(transactionId);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [pausedUntil, setPausedUntil] = useState<number>();
  const queue = useRef<{ key: number; file: File }[]>([]);
  const running = useRef(false);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  const set = (key: number, change: Partial<Upload>) =>
    setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...change } : u)));

  const fail = (keys: number[], error: string) =>
    setUploads((all) =>
      all.map((u) => (keys.includes(u.key) ? { ...u, state: 'failed', error } : u)),
    );

  const run = async () => {
    if (running.current) return;
    running.current = true;
    try {
      let tries = 0;
      while (queue.current.length > 0 && alive.current) {
        const [next] = queue.current as [{ key: number; file: File }];
        set(next.key, { state: 'uploading' });
        try {
          await upload.mutateAsync(next.file);
          set(next.key, { state: 'done' });
        } catch (error) {
          const busy = isRetryableApiError(error) ? error : undefined;
          const wait = busy ? (busy.retryAfterSeconds ?? 5) : undefined;
          if (busy && wait !== undefined && wait <= MAX_AUTO_RETRY_SECONDS && ++tries < MAX_TRIES) {
            const at = busy.receivedAt + wait * 1000;
            set(next.key, { state: 'waiting' });
            setPausedUntil(at);
            await sleepUntil(at);
            setPausedUntil(undefined);
            continue;
          }
          const message = error instanceof Error ? error.message : String(error);
          queue.current.shift();
          tries = 0;
          if (isApiError(error) && error.code === 'transaction_reviewed') {
            // Reviewed meanwhile: none of the rest can be attached either.
            fail([next.key, ...queue.current.map((q) => q.key)], message);
            queue.current = [];
          } else fail([next.key], message);
          continue;
        }
        queue.current.shift();
        tries = 0;
      }
    } finally {
      running.current = false;
    }
  };

  /** Queues `files` (a new choice clears what finished before); returns at once. */
  const add = (files: File[]) => {
    if (files.length === 0) return;
    const added: Upload[] = files.map((file) => {
      const key = nextKey++;
      const problem = fileProblem(file);
      if (!problem) queue.current.push({ key, file });
      return problem
        ? { key, name: file.name, state: 'failed', error: problem }
        : { key, name: file.name, state: 'waiting' };
    });
    setUploads((all) => [
      ...all.filter((u) => u.state === 'waiting' || u.state === 'uploading'),
      ...added,
    ]);
    void run();
  };

  const dismiss = () =>
    setUploads((all) => all.filter((u) => u.state === 'waiting' || u.state === 'uploading'));

  return { uploads, pausedUntil, add, dismiss };
}
