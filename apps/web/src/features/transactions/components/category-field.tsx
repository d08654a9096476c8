import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { type CategoryChoice, categoriesQueryOptions, findCategories } from '../api/get-categories';

export type CategoryPick = { kind: 'group'; key: string } | { kind: 'codes'; codes: string[] };

/**
 * "Category": type a word ("software", "travel", "restaurants", "5812") and pick what it
 * finds: an everyday theme (its codes), a group of codes, or one code. A combobox in the ARIA
 * pattern: arrows move, Enter picks (the first choice when none is active), Escape clears.
 * The catalog is fetched when the field is first focused.
 */
export function CategoryField({ onPick }: { onPick: (pick: CategoryPick) => void }) {
  const [typed, setTyped] = useState('');
  const [active, setActive] = useState(0);
  const [wanted, setWanted] = useState(false);
  const catalog = useQuery({ ...categoriesQueryOptions(), enabled: wanted });
  const id = useId();
  const listId = `${id}-list`;
  const choices = catalog.data ? findCategories(catalog.data, typed) : [];
  const open = typed.trim() !== '' && (choices.length > 0 || catalog.isSuccess);

  const pick = (choice: CategoryChoice) => {
    onPick(
      choice.kind === 'group'
        ? { kind: 'group', key: choice.key }
        : { kind: 'codes', codes: choice.kind === 'theme' ? choice.codes : [choice.key] },
    );
    setTyped('');
    setActive(0);
  };

  return (
    <div className="field category-field">
      <label htmlFor={id}>Category</label>
      <input
        id={id}
        role="combobox"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open && choices[active] ? `${listId}-${active}` : undefined}
        aria-busy={catalog.isFetching || undefined}
        placeholder="Name or code"
        autoComplete="off"
        maxLength={60}
        value={typed}
        onFocus={() => setWanted(true)}
        onChange={(e) => {
          setWanted(true);
          setTyped(e.target.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') setActive((n) => Math.min(n + 1, choices.length - 1));
          else if (e.key === 'ArrowUp') setActive((n) => Math.max(n - 1, 0));
          else if (e.key === 'Escape') setTyped('');
          else if (e.key === 'Enter' && choices[active]) pick(choices[active]);
          else return;
          e.preventDefault();
        }}
      />
      {/* The ARIA combobox pattern with aria-activedescendant: the input keeps the focus and
          handles the keys; an option is pointed at, never focused. */}
      <div
        id={listId}
        role="listbox"
        aria-label="Categories found"
        className="category-choices"
        hidden={!open}
      >
        {choices.length === 0 ? (
          <p className="muted">No category matches “{typed.trim()}”.</p>
        ) : (
          choices.map((choice, n) => (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the input handles the keys (above)
            <div
              key={`${choice.kind}:${choice.key}`}
              id={`${listId}-${n}`}
              role="option"
              tabIndex={-1}
              aria-selected={n === active}
              onPointerDown={(e) => e.preventDefault()}
              onClick={() => pick(choice)}
            >
              <span className="category-choice-label">{choice.label}</span>{' '}
              <span className="muted">
                {choice.kind === 'theme'
                  ? `${choice.codes.length} categories`
                  : choice.kind === 'group'
                    ? 'group'
                    : ''}
              </span>
            </div>
          ))
        )}
      </div>
      {catalog.isError ? (
        <small className="form-error" role="alert">
          Categories could not be loaded: {catalog.error.message}
        </small>
      ) : null}
    </div>
  );
}
