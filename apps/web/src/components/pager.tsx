interface PagerProps {
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  busy?: boolean;
  label: string;
}

/** Previous / Next over a cursor-paged list. */
export function Pager({ page, hasPrevious, hasNext, onPrevious, onNext, busy, label }: PagerProps) {
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" onClick={onPrevious} disabled={!hasPrevious}>
        Previous page
      </button>
      <span aria-live="polite">
        Page {page}
        {busy ? ' · Loading…' : ''}
      </span>
      <button type="button" onClick={onNext} disabled={!hasNext || busy}>
        Next page
      </button>
    </nav>
  );
}
