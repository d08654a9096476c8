import { text } from './search-params';

/**
 * Cursor paging with a working Back: the URL holds the cursors of every page visited after
 * the first, so the current page's cursor is the last one and "Previous" drops it.
 * Cursors are opaque; the BFF checks them (a bad one is its 400, shown as an error state).
 */
export type CursorStack = string[] | undefined;

const CURSOR = /^[A-Za-z0-9_\-.~=]+$/;
const MAX_DEPTH = 200;

export function parseCursorStack(value: unknown): CursorStack {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_DEPTH) return undefined;
  const cursors = value.map((c) => text(c, 512, CURSOR));
  return cursors.every((c): c is string => c !== undefined) ? cursors : undefined;
}

export function currentCursor(stack: CursorStack): string | undefined {
  return stack?.at(-1);
}

export function pushCursor(stack: CursorStack, next: string): string[] {
  return [...(stack ?? []), next];
}

export function popCursor(stack: CursorStack): string[] | undefined {
  const rest = (stack ?? []).slice(0, -1);
  return rest.length > 0 ? rest : undefined;
}

/** 1-based number of the page the stack points at. */
export function pageNumber(stack: CursorStack): number {
  return (stack?.length ?? 0) + 1;
}
