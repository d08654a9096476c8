import { queryOptions } from '@tanstack/react-query';
import { apiFile } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/save-blob';

export async function fetchInboxFile(itemId: string, signal?: AbortSignal): Promise<Blob> {
  const response = await apiFile('inbox.file', { params: { id: itemId }, signal });
  return response.blob();
}

/**
 * An inbox item's bytes, for its thumbnail. Fetched rather than linked: an `<img src>` cannot
 * carry the `X-CSRF` header the BFF requires. A file never changes, so it stays fresh.
 */
export function inboxFileQueryOptions(itemId: string) {
  return queryOptions({
    queryKey: ['receipt-inbox', 'file', itemId] as const,
    queryFn: ({ signal }) => fetchInboxFile(itemId, signal),
    staleTime: Infinity,
    gcTime: 60_000,
  });
}

/** Saves an item's file under its name (a PDF, a HEIC picture the browser cannot show). */
export async function downloadInboxFile(itemId: string, fileName: string) {
  saveBlob(await fetchInboxFile(itemId), fileName);
}
