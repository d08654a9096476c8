/** A status as a word with a colour; the word carries the meaning, the colour only helps. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{status}</span>;
}
