import { useVirtualizer } from '@tanstack/react-virtual';
import { Fragment, type ReactNode, useRef } from 'react';

/** Up to this many rows render plainly; past it only the visible rows are in the DOM. */
export const VIRTUALIZE_AFTER = 100;
/** Rows have a fixed height in CSS (`.virtual tr`) so the estimate is exact. */
const ROW_HEIGHT = 44;

interface VirtualTableProps<T> {
  label: string;
  head: ReactNode;
  rows: readonly T[];
  columns: number;
  rowKey: (row: T) => string;
  renderRow: (row: T, index: number) => ReactNode;
  busy?: boolean;
}

/**
 * A real table (header, rows, cells for assistive technology) whose body is windowed when
 * long, with spacer rows keeping the scroll height right.
 */
export function VirtualTable<T>(props: VirtualTableProps<T>) {
  const { label, head, rows, columns, rowKey, renderRow, busy } = props;
  const scrollRef = useRef<HTMLElement>(null);
  const virtualize = rows.length > VIRTUALIZE_AFTER;
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    enabled: virtualize,
  });

  let body: ReactNode;
  if (!virtualize) {
    body = rows.map((row, index) => <Fragment key={rowKey(row)}>{renderRow(row, index)}</Fragment>);
  } else {
    const items = virtualizer.getVirtualItems();
    const top = items[0]?.start ?? 0;
    const bottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
    body = (
      <>
        {top > 0 ? <Spacer height={top} columns={columns} /> : null}
        {items.map((item) => {
          const row = rows[item.index] as T;
          return <Fragment key={rowKey(row)}>{renderRow(row, item.index)}</Fragment>;
        })}
        {bottom > 0 ? <Spacer height={bottom} columns={columns} /> : null}
      </>
    );
  }

  return (
    <section
      ref={scrollRef}
      className={virtualize ? 'table-wrap virtual' : 'table-wrap'}
      aria-busy={busy || undefined}
      // A scrollable region must be reachable by keyboard.
      // biome-ignore lint/a11y/noNoninteractiveTabindex: scroll container, see above
      tabIndex={0}
      // Not the bare label: the screen's own section usually carries it already.
      aria-label={`${label} table`}
    >
      <table aria-label={label} aria-rowcount={virtualize ? rows.length + 1 : undefined}>
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
