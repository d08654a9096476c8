/** What a screen shows while its first data loads. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="skeleton-line" aria-hidden="true" />
      <span className="skeleton-line" aria-hidden="true" />
      <span className="skeleton-line short" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}
