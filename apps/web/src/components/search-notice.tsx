import { useLocation } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { MAX_PAGES } from '../lib/search-params';

/**
 * What to say about a value a link held that the screen left out: given the value as the link
 * had it and every rejected value (for words about two at once); undefined to say nothing.
 */
export type RejectedWords = Record<
  string,
  (value: string, rejected: Record<string, unknown>) => string | undefined
>;

/** A link's value as the person would recognise it (a list as the address writes it), kept short. */
export function shownValue(value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
      : Array.isArray(value) && value.every((v) => typeof v === 'string')
        ? value.join(',')
        : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** The words for a `pages` value: too many, or not a count at all. */
export function pagesWords(value: string): string {
  const n = Number(value);
  return Number.isInteger(n) && n > MAX_PAGES
    ? `The link asked for ${value} pages; showing the first ${MAX_PAGES}, the most a link reopens.`
    : `The link's page count “${value}” isn't a number of pages; showing the first page.`;
}

/**
 * Takes the notice's words out of the browser's entry for this address, so a reload, or coming
 * back to the entry later, shows the corrected view without them. (The router hears of this
 * and drops them from its location too: the notice holds its own copy meanwhile.)
 */
function forgetRejectedInBrowserHistory(): void {
  const state: unknown = window.history.state;
  if (!state || typeof state !== 'object' || !('rejectedSearch' in state)) return;
  const { rejectedSearch: _said, ...rest } = state as Record<string, unknown>;
  window.history.replaceState(rest, '', window.location.href);
}

type Rejected = Record<string, unknown>;

/**
 * Says what the link that opened this screen held and the screen left out, once the address
 * has been corrected (see `rejectedSearch`). It is said once: not again on a reload or on
 * coming back to the entry, and not after "Dismiss"; it goes as soon as the person changes
 * anything (the address changes).
 */
export function SearchNotice({ words }: { words: RejectedWords }) {
  const fresh = useLocation({ select: (location) => location.state.rejectedSearch });
  const href = useLocation({ select: (location) => location.href });
  const [held, setHeld] = useState<{ href: string; rejected: Rejected }>();
  const [dismissed, setDismissed] = useState<Rejected>();
  if (fresh && fresh !== held?.rejected && fresh !== dismissed) setHeld({ href, rejected: fresh });
  useEffect(() => {
    if (fresh) forgetRejectedInBrowserHistory();
  }, [fresh]);
  const rejected = held?.href === href ? held.rejected : undefined;
  if (!rejected) return null;
  const lines = Object.entries(rejected)
    .map(([key, value]) => {
      const say = words[key];
      const shown = shownValue(value);
      return say ? say(shown, rejected) : `The link's “${key}” value “${shown}” was left out.`;
    })
    .filter((line): line is string => line !== undefined);
  return (
    <div className="notice search-notice" role="status">
      {lines.map((line) => (
        <p key={line}>{line}</p>
      ))}
      <button
        type="button"
        className="small"
        onClick={() => {
          setDismissed(rejected);
          setHeld(undefined);
        }}
      >
        Dismiss
      </button>
    </div>
  );
}
