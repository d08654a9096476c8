// The index list's page cursors as the API hands them out: the store's position, then a MAC of
// it. A cursor this BFF did not issue, or one changed by a single character, is refused as such
// (400) before the store reads it, whatever it holds: bad base64, other JSON, an id holding SQL.
// Replicas given the same key (the session secret, shared by a deployment) accept each other's.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { BadIndexCursorError } from './index-store';

export interface PageCursors {
  /** The store's position as a cursor for the API. */
  seal(position: string): string;
  /** The store's position from an API cursor; throws BadIndexCursorError when not one of ours. */
  open(cursor: string): string;
}

/** Cursors sealed with a key derived from `secret` (a random one when none is given). */
export function pageCursors(secret?: string): PageCursors {
  const key = createHmac('sha256', secret ?? randomBytes(32))
    .update('transaction index page cursor')
    .digest();
  // Compared as text: base64url's last character has spare bits, so two spellings decode alike.
  const tag = (position: string) =>
    createHmac('sha256', key).update(position).digest().subarray(0, 16).toString('base64url');
  return {
    seal: (position) => `${position}.${tag(position)}`,
    open(cursor) {
      const dot = cursor.lastIndexOf('.');
      const position = cursor.slice(0, dot);
      const given = Buffer.from(cursor.slice(dot + 1));
      const expected = Buffer.from(tag(position));
      if (dot < 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new BadIndexCursorError('not a page position this list gave');
      }
      return position;
    },
  };
}
