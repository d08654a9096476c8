/**
 * A status as a word with a colour; the word carries the meaning, the colour only helps.
 * Written in sentence case ("Settled"), as a label, while the class keeps the wire value.
 */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{statusLabel(status)}</span>;
}

/** "settled" → "Settled", "in_review" → "In review". */
export function statusLabel(status: string): string {
  const words = status.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
