import { useLocation } from '@tanstack/react-router';
import { MAX_PAGES } from '../lib/search-params';

/**
 * What to say about a value a link held that the screen left out: given the value as the link
 * had it and every rejected value (for words about two at once); undefined to say nothing.
 */
export type RejectedWords = Record<
  string,
  (value: string, rejected: Record<string, unknown>) => string | undefined
>;

/** A link's value as the person would recognise it, kept short. */
export function shownValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
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
 * Says what the link that opened this screen held and the screen left out, once the address
 * has been corrected (see `rejectedSearch`): the words stay with this history entry, and go
 * as soon as the person changes anything.
 */
export function SearchNotice({ words }: { words: RejectedWords }) {
  const rejected = useLocation({ select: (location) => location.state.rejectedSearch });
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
    </div>
  );
}
