import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import { useEffect, useRef, useState } from 'react';
import { Field } from '../../../components/field';

/** "6100 Software", "(archived)" after one that is; "None" for no category. */
export function categoryText(id: string | null, categories: AccountingCategory[]): string {
  if (id === null) return 'None';
  const category = categories.find((c) => c.id === id);
  if (!category) return 'A category no longer in the chart of accounts';
  return `${category.code} ${category.name}${category.archived ? ' (archived)' : ''}`;
}

interface Props {
  value: string | null;
  /** Offered even when archived: the category the notes had when editing began. */
  kept: string | null;
  categories: AccountingCategory[];
  /** The category the transaction's merchant was last booked to: offered first. */
  suggested?: string | undefined;
  error: string | undefined;
  onChange: (id: string | null) => void;
}

interface Choice {
  id: string | null;
  label: string;
  note?: string;
}

/** The chart's categories whose code starts with, or whose name holds, what was typed. */
export function findAccountingCategories(
  categories: readonly AccountingCategory[],
  typed: string,
): AccountingCategory[] {
  const text = typed.trim().toLowerCase();
  if (text === '') return [...categories];
  const byCode = categories.filter((c) => c.code.toLowerCase().startsWith(text));
  const byName = categories.filter(
    (c) =>
      !byCode.includes(c) &&
      (c.name.toLowerCase().includes(text) || `${c.code} ${c.name}`.toLowerCase().includes(text)),
  );
  return [...byCode, ...byName];
}

/**
 * The accounting category, typed ahead over the chart of accounts by code or name: the chart's
 * current categories (an archived one stays offered only while the transaction has it, marked
 * "(archived)"), the merchant's last category first. A combobox in the ARIA pattern: the list
 * opens on focus, arrows move, Enter picks the active choice (the first when none was moved to),
 * Escape puts back what the field held.
 */
export function AccountingCategorySelect({
  value,
  kept,
  categories,
  suggested,
  error,
  onChange,
}: Props) {
  const [typed, setTyped] = useState<string>();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const list = useRef<HTMLDivElement>(null);
  // The active choice in view as the list opens (on the category chosen) and as arrows move.
  useEffect(() => {
    if (open) list.current?.children[active]?.scrollIntoView?.({ block: 'nearest' });
  }, [open, active]);
  const offered = categories.filter((c) => !c.archived || c.id === value || c.id === kept);
  const suggestion = offered.find((c) => c.id === suggested && c.id !== value && !c.archived);
  const found = findAccountingCategories(offered, typed ?? '');
  const choices: Choice[] = [
    ...(suggestion && found.includes(suggestion)
      ? [
          {
            id: suggestion.id,
            label: categoryText(suggestion.id, categories),
            note: 'this merchant’s last',
          },
        ]
      : []),
    ...found
      .filter((c) => c !== suggestion)
      .map((c) => ({ id: c.id, label: categoryText(c.id, categories) })),
    ...(typed === undefined || typed.trim() === '' ? [{ id: null, label: 'No category' }] : []),
  ];
  const shown = value === null ? '' : categoryText(value, categories);

  const pick = (choice: Choice) => {
    onChange(choice.id);
    setTyped(undefined);
    setOpen(false);
    setActive(0);
  };
  const close = () => {
    setTyped(undefined);
    setOpen(false);
    setActive(0);
  };

  return (
    <Field
      label="Accounting category"
      className="account-combobox"
      error={error}
      hint={
        categories.length === 0
          ? 'There are no accounting categories yet: admins add them in the chart of accounts.'
          : suggestion && value === null
            ? `This merchant was last booked to ${categoryText(suggestion.id, categories)}: press Enter to use it.`
            : undefined
      }
    >
      {(control) => {
        const listId = `${control.id}-list`;
        return (
          // The list drops from the box itself (the field's label, hint and error around it).
          <div className="combobox-anchor">
            <input
              {...control}
              role="combobox"
              aria-expanded={open}
              aria-controls={listId}
              aria-autocomplete="list"
              aria-activedescendant={open && choices[active] ? `${listId}-${active}` : undefined}
              placeholder="Type a code or a name"
              autoComplete="off"
              maxLength={120}
              value={typed ?? shown}
              // The category chosen, whole, where the box is too narrow for its name.
              title={typed === undefined ? shown : undefined}
              onFocus={() => {
                setOpen(true);
                // Opened on the category chosen, not the chart's first (a screen review).
                const chosen =
                  value === null ? -1 : choices.findIndex((c) => c.id === value && !c.note);
                setActive(Math.max(chosen, 0));
              }}
              onBlur={close}
              onChange={(e) => {
                setTyped(e.target.value);
                setOpen(true);
                setActive(0);
              }}
              onKeyDown={(e) => {
                if (e.key === 'ArrowDown') {
                  if (open) setActive((n) => Math.min(n + 1, choices.length - 1));
                  else setOpen(true);
                } else if (e.key === 'ArrowUp') setActive((n) => Math.max(n - 1, 0));
                else if (e.key === 'Escape' && (open || typed !== undefined)) close();
                else if (e.key === 'Enter' && open && choices[active]) pick(choices[active]);
                else return;
                e.preventDefault();
              }}
            />
            {/* The input keeps the focus and handles the keys; an option is pointed at, never
                focused. */}
            <div
              id={listId}
              role="listbox"
              aria-label="Accounting categories"
              className="category-choices"
              ref={list}
              hidden={!open}
            >
              {choices.length === 0 ? (
                <p className="muted">No category matches “{(typed ?? '').trim()}”.</p>
              ) : (
                choices.map((choice, n) => (
                  // biome-ignore lint/a11y/useKeyWithClickEvents: the input handles the keys (above)
                  <div
                    key={choice.note ? `suggested:${choice.id}` : (choice.id ?? 'none')}
                    id={`${listId}-${n}`}
                    role="option"
                    tabIndex={-1}
                    aria-selected={n === active}
                    onPointerDown={(e) => e.preventDefault()}
                    onClick={() => pick(choice)}
                  >
                    <span className="category-choice-label">{choice.label}</span>
                    {choice.note ? <span className="muted"> · {choice.note}</span> : null}
                  </div>
                ))
              )}
            </div>
          </div>
        );
      }}
    </Field>
  );
}
