import { useQueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { uploadQueueFor } from '../upload-queue';

/** The inbox's upload queue and how its files are doing, following every change. */
export function useInboxUploads() {
  const queue = uploadQueueFor(useQueryClient());
  const { uploads, pausedUntil } = useSyncExternalStore(queue.subscribe, queue.getSnapshot);
  return {
    uploads,
    pausedUntil,
    add: (files: readonly File[]) => queue.add(files),
    retry: (key: number) => queue.retry(key),
    dismiss: () => queue.dismiss(),
  };
}
