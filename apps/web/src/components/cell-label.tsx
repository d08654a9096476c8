/**
 * A value's column name, shown where a table's rows become cards on a phone (each table's
 * stylesheet shows `.cell-label` there); hidden from assistive technology, which reads the
 * table's own header.
 */
export function CellLabel({ children }: { children: string }) {
  return (
    <span className="cell-label" aria-hidden="true">
      {children}:{' '}
    </span>
  );
}
