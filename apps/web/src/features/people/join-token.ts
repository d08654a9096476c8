/**
 * The invitation token, taken from the link's fragment (`/join#<token>`) as the join page opens
 * and kept here, in memory only: the address bar (and so the history, a bookmark, a shared
 * screen) no longer shows it. A reload after that has no token: the person opens the link again.
 */
let held: string | undefined;
/** Counts the links opened in this page: another link pasted into the same tab starts afresh. */
let opened = 0;

/** Keeps the fragment's token (without the `#`); empty fragments keep nothing. */
export function holdJoinToken(fragment: string): void {
  const token = fragment.replace(/^#/, '');
  if (!token) return;
  held = token;
  opened += 1;
}

/** Which link of this page the held token came from (a key for the join page's state). */
export function joinLinkNumber(): number {
  return opened;
}

export function heldJoinToken(): string | undefined {
  return held;
}

/** Signed up: the token is used and forgotten. */
export function forgetJoinToken(): void {
  held = undefined;
}
