import { useVirtualizer } from '@tanstack/react-virtual';
import { type CSSProperties, Fragment, type ReactNode, type Ref, useEffect, useRef } from 'react';
import { useNarrow } from './use-narrow';

/** Up to this many rows render plainly; past it only the visible rows are in the DOM. */
export const VIRTUALIZE_AFTER = 100;
/** A row's height before it is measured (`--row-height` in CSS is each row's least height). */
const ROW_HEIGHT = 44;

/**
 * What a windowed row spreads on its `<tr>`: its place, and the ref that measures it (a row that
 * wraps a long value is taller than the estimate). Empty when the table is not windowed.
 */
export interface MeasuredRow {
  ref?: Ref<HTMLTableRowElement>;
  'data-index'?: number;
}

interface VirtualTableProps<T> {
  label: string;
  head: ReactNode;
  rows: readonly T[];
  columns: number;
  rowKey: (row: T) => string;
  renderRow: (row: T, index: number, measured: MeasuredRow) => ReactNode;
  busy?: boolean;
  /** The table's own class, for its column layout. */
  className?: string;
  /** A row's height in px before it is measured; `narrow` where the stylesheet stacks cells. */
  rowHeight?: { wide: number; narrow?: number };
}

/**
 * A real table (header, rows, cells for assistive technology) whose body is windowed when
 * long, with spacer rows keeping the scroll height right.
 */
export function VirtualTable<T>(props: VirtualTableProps<T>) {
  const { label, head, rows, columns, rowKey, renderRow, busy, className } = props;
  const scrollRef = useRef<HTMLElement>(null);
  const virtualize = rows.length > VIRTUALIZE_AFTER;
  // Where the stylesheet lays a table out for a phone.
  const narrow = useNarrow();
  const rowHeight =
    (narrow ? props.rowHeight?.narrow : undefined) ?? props.rowHeight?.wide ?? ROW_HEIGHT;
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    enabled: virtualize,
  });
  // A window turned narrow or wide: every row's height changed.
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-measure when rowHeight changes
  useEffect(() => {
    if (virtualize) virtualizer.measure();
  }, [rowHeight, virtualize, virtualizer]);

  let body: ReactNode;
  if (!virtualize) {
    body = rows.map((row, index) => (
      <Fragment key={rowKey(row)}>{renderRow(row, index, {})}</Fragment>
    ));
  } else {
    const items = virtualizer.getVirtualItems();
    const top = items[0]?.start ?? 0;
    const bottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
    body = (
      <>
        {top > 0 ? <Spacer height={top} columns={columns} /> : null}
        {items.map((item) => {
          const row = rows[item.index] as T;
          const measured = { ref: virtualizer.measureElement, 'data-index': item.index };
          return <Fragment key={rowKey(row)}>{renderRow(row, item.index, measured)}</Fragment>;
        })}
        {bottom > 0 ? <Spacer height={bottom} columns={columns} /> : null}
      </>
    );
  }

  return (
    <section
      ref={scrollRef}
      className={virtualize ? 'table-wrap virtual' : 'table-wrap'}
      style={{ '--row-height': `${rowHeight}px` } as CSSProperties}
      aria-busy={busy || undefined}
      // A scrollable region must be reachable by keyboard.
      // biome-ignore lint/a11y/noNoninteractiveTabindex: scroll container, see above
      tabIndex={0}
      // Not the bare label: the screen's own section usually carries it already.
      aria-label={`${label} table`}
    >
      <table
        className={className}
        aria-label={label}
        aria-rowcount={virtualize ? rows.length + 1 : undefined}
      >
        <thead>{head}</thead>
        <tbody>{body}</tbody>
      </table>
    </section>
  );
}

function Spacer({ height, columns }: { height: number; columns: number }) {
  return (
    <tr className="spacer">
      <td aria-hidden="true" colSpan={columns} style={{ height, padding: 0, border: 0 }} />
    </tr>
  );
}
