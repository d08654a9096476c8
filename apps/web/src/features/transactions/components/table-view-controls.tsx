import { useEffect, useRef, useState } from 'react';
import { type Density, OPTIONAL_COLUMNS, type TableViewState } from './use-table-view';

const DENSITIES: { value: Density; label: string }[] = [
  { value: 'comfortable', label: 'Comfortable' },
  { value: 'compact', label: 'Compact' },
];

/**
 * Above the Transactions table: which of its optional columns show (a disclosure of checkboxes,
 * closed by Escape or a click elsewhere, its boxes in the page only while open, so that they are
 * never taken for the filters' own Card and Sub account) and how dense its rows are. Both kept
 * per person.
 */
export function TableViewControls({
  table,
  subAccountColumn,
}: {
  table: TableViewState;
  /** The list spans several sub accounts, so a row can name its own. */
  subAccountColumn: boolean;
}) {
  const menu = useRef<HTMLDetailsElement>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const close = (event: Event) => {
      const details = menu.current;
      if (!details?.open) return;
      if (event instanceof KeyboardEvent) {
        if (event.key !== 'Escape') return;
        setOpen(false);
        details.querySelector('summary')?.focus();
      } else if (!details.contains(event.target as Node)) {
        setOpen(false);
      }
    };
    document.addEventListener('keydown', close);
    document.addEventListener('pointerdown', close);
    return () => {
      document.removeEventListener('keydown', close);
      document.removeEventListener('pointerdown', close);
    };
  }, []);
  const columns = OPTIONAL_COLUMNS.filter((c) => c.key !== 'subAccount' || subAccountColumn);
  const hiddenCount = columns.filter((c) => !table.shows(c.key)).length;

  return (
    <div className="table-view-controls">
      <details
        ref={menu}
        className="menu-disclosure columns-menu"
        open={open}
        onToggle={(e) => setOpen(e.currentTarget.open)}
      >
        <summary>
          Columns
          {hiddenCount > 0 ? <span className="muted"> · {hiddenCount} hidden</span> : null}
        </summary>
        {open ? (
          <fieldset className="menu-disclosure-panel columns-menu-panel">
            <legend>Show columns</legend>
            {columns.map((c) => (
              <label key={c.key} className="check">
                <input
                  type="checkbox"
                  checked={table.shows(c.key)}
                  onChange={(e) => table.setShown(c.key, e.target.checked)}
                />
                {c.label}
              </label>
            ))}
            <p className="muted">
              Date, description and amount always show. Your choice is kept in this browser.
            </p>
          </fieldset>
        ) : null}
      </details>
      <fieldset className="density-choice">
        <legend className="visually-hidden">Row density</legend>
        {DENSITIES.map((d) => (
          <label key={d.value}>
            <input
              type="radio"
              name="transactions-density"
              value={d.value}
              checked={table.view.density === d.value}
              onChange={() => table.setDensity(d.value)}
            />
            <span>{d.label}</span>
          </label>
        ))}
      </fieldset>
    </div>
  );
}
