import { api } from '../../../lib/api-client';

/**
 * Puts one file in the inbox: the body is the file's own bytes (the BFF decides the type from
 * them), its name percent-encoded in `X-File-Name` since a header is Latin-1.
 */
export function uploadToInbox(file: File) {
  return api('inbox.upload', {
    body: file,
    headers: { 'X-File-Name': encodeURIComponent(file.name) },
  });
}
