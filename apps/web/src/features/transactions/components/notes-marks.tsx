import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { IndexTransaction } from '@card-console/shared/api/transaction-index';
import { categoryText } from './accounting-category-select';

type Notes = NonNullable<IndexTransaction['notes']>;

/**
 * A row's notes at a glance: its accounting category's code, a reviewed mark, a memo icon, tags,
 * how many receipts; each says in words what it is to assistive technology, and in full in its
 * tooltip.
 */
export function NotesMarks({
  notes,
  categories,
}: {
  notes: Notes | undefined;
  /** The chart of accounts; undefined while it loads. */
  categories: AccountingCategory[] | undefined;
}) {
  const memo = notes?.memo.trim();
  const receipts = notes?.receipts ?? 0;
  if (
    !notes ||
    (!notes.categoryId && !notes.reviewed && !memo && notes.tags.length === 0 && receipts === 0)
  ) {
    return <span className="muted">—</span>;
  }
  const category = notes.categoryId
    ? categories?.find((c) => c.id === notes.categoryId)
    : undefined;
  const categoryName =
    notes.categoryId && categories ? categoryText(notes.categoryId, categories) : undefined;
  const tags = notes.tags.join(', ');
  return (
    <span className="notes-marks">
      {notes.categoryId ? (
        <span className="account-code" title={categoryName}>
          <span className="visually-hidden">Accounting category </span>
          {category ? category.code : <span aria-hidden="true">…</span>}
          {category ? null : <span className="visually-hidden">{categoryName ?? 'loading'}</span>}
        </span>
      ) : null}
      {notes.reviewed ? (
        <span className="reviewed-mark" title="Reviewed">
          <span aria-hidden="true">✓</span>
          <span className="visually-hidden">Reviewed</span>
        </span>
      ) : null}
      {memo ? (
        <span className="memo-mark" title={memo}>
          <MemoIcon />
          <span className="visually-hidden">Memo: {memo}</span>
        </span>
      ) : null}
      {receipts > 0 ? (
        <span className="receipts-mark" title={receiptsText(receipts)}>
          <ReceiptIcon />
          <span aria-hidden="true">{receipts}</span>
          <span className="visually-hidden">{receiptsText(receipts)}</span>
        </span>
      ) : null}
      {tags ? (
        <span className="tags-mark" title={`Tags: ${tags}`}>
          <span aria-hidden="true">#{notes.tags.length}</span>
          <span className="visually-hidden">Tags: {tags}</span>
        </span>
      ) : null}
    </span>
  );
}

/** A 14 px line icon in the text's colour, from one path. */
function LineIcon({ d }: { d: string }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 16 16" width="14" height="14" focusable="false">
      <path d={d} fill="none" stroke="currentColor" strokeWidth="1.3" strokeLinejoin="round" />
    </svg>
  );
}

const MemoIcon = () => <LineIcon d="M3 1.5h7l3 3v10H3z M10 1.5v3h3 M5 7.5h6 M5 10h6 M5 12.5h4" />;

const receiptsText = (n: number) => `${n} receipt${n === 1 ? '' : 's'}`;

const ReceiptIcon = () => (
  <LineIcon d="M3.5 1.5h9v13l-1.5-1-1.5 1-1.5-1-1.5 1-1.5-1-1.5 1z M5.5 5h5 M5.5 7.5h5 M5.5 10h3" />
);
