import { type ReactNode, useId, useState } from 'react';

/**
 * The filters that fold under "Filters" on a phone, the toggle saying how many are set; on a
 * wide screen the stylesheet shows them all.
 */
export function FiltersFold({ setCount, children }: { setCount: number; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const moreId = useId();
  return (
    <>
      <button
        type="button"
        className="filters-toggle"
        aria-expanded={open}
        aria-controls={moreId}
        onClick={() => setOpen(!open)}
      >
        Filters{setCount > 0 ? ` (${setCount} set)` : ''}
      </button>
      <div id={moreId} className={open ? 'more-filters open' : 'more-filters'}>
        {children}
      </div>
    </>
  );
}
