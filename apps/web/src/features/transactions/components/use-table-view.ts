import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { sessionQueryOptions } from '../../session/api/get-session';

/**
 * The columns a person may hide; Date, Description and Amount always show. Named apart from the
 * filters' own Card and Sub account, so each field's name says which it is.
 */
export const OPTIONAL_COLUMNS = [
  { key: 'merchant', label: 'Merchant line' },
  { key: 'status', label: 'Status and decline reason' },
  { key: 'notes', label: 'Notes' },
  { key: 'card', label: 'Card and last four' },
  { key: 'subAccount', label: 'Sub account name' },
] as const;

export type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number]['key'];
export type Density = 'comfortable' | 'compact';

export interface TableView {
  /** The columns hidden: a column added later shows until the person hides it. */
  hidden: readonly OptionalColumn[];
  density: Density;
}

/**
 * Every column, compact: a finance person's whole picture of each row, and 15+ rows in view at
 * 1280×800 (Comfortable stacks each row's second values, two lines a row).
 */
export const DEFAULT_VIEW: TableView = { hidden: [], density: 'compact' };

/**
 * Where a person's view is kept: this browser's localStorage, under their email, so two people
 * sharing a browser keep their own, and nothing goes to the server (a choice of layout, not data).
 */
export const tableViewKey = (email: string) => `card-console:transactions-view:${email}`;

const KEYS = new Set<string>(OPTIONAL_COLUMNS.map((c) => c.key));

function read(email: string | undefined): TableView {
  if (!email) return DEFAULT_VIEW;
  try {
    const kept = JSON.parse(localStorage.getItem(tableViewKey(email)) ?? 'null') as unknown;
    if (!kept || typeof kept !== 'object') return DEFAULT_VIEW;
    const { hidden, density } = kept as Record<string, unknown>;
    return {
      hidden: Array.isArray(hidden)
        ? hidden.filter((k): k is OptionalColumn => typeof k === 'string' && KEYS.has(k))
        : [],
      density: density === 'comfortable' ? 'comfortable' : 'compact',
    };
  } catch {
    // Storage refused (private mode) or a value from elsewhere: the default view.
    return DEFAULT_VIEW;
  }
}

function write(email: string | undefined, view: TableView) {
  if (!email) return;
  try {
    localStorage.setItem(tableViewKey(email), JSON.stringify(view));
  } catch {
    // Storage full or refused: the choice holds until the page is left.
  }
}

/** The signed-in person's columns and density for the Transactions table, kept as they change. */
export function useTableView() {
  const email = useQuery(sessionQueryOptions()).data?.email;
  const [state, setState] = useState(() => ({ email, view: read(email) }));
  // Another person signed in (or the session arrived): their own view.
  const current = state.email === email ? state : { email, view: read(email) };
  if (current !== state) setState(current);
  const change = (next: TableView) => {
    write(email, next);
    setState({ email, view: next });
  };
  const { view } = current;
  return {
    view,
    shows: (column: OptionalColumn) => !view.hidden.includes(column),
    setShown: (column: OptionalColumn, shown: boolean) =>
      change({
        ...view,
        hidden: shown
          ? view.hidden.filter((k) => k !== column)
          : [...view.hidden.filter((k) => k !== column), column],
      }),
    setDensity: (density: Density) => change({ ...view, density }),
  };
}

export type TableViewState = ReturnType<typeof useTableView>;
