import type { IndexTransaction } from '@card-console/shared/api/transaction-index';
import { useState } from 'react';

/** A row of the index by its sub account and id (an id alone is one sub account's). */
export const rowKey = (t: Pick<IndexTransaction, 'subAccountId' | 'id'>) =>
  `${t.subAccountId}\u0000${t.id}`;

export interface RowSelection {
  /** The rows shown that are selected, in the list's order. */
  rows: IndexTransaction[];
  has: (t: IndexTransaction) => boolean;
  /** Selects or unselects a row; with `range`, every row from the last one toggled to it. */
  toggle: (t: IndexTransaction, range?: boolean) => void;
  /** Every row shown, or none when all are. */
  toggleAll: () => void;
  clear: () => void;
  /**
   * Every row the filter gives, on every page (the BFF applies a change to the filter as it is
   * when confirmed): chosen once every row shown is; any other choice ends it.
   */
  matching: boolean;
  selectMatching: () => void;
}

/**
 * The rows chosen for a change of their notes. A new list (other filters, another order)
 * starts with none; rows that leave the list (a change moved them out of its filter) leave
 * the selection with it.
 */
export function useRowSelection(shown: readonly IndexTransaction[], listKey: string): RowSelection {
  const [state, setState] = useState({
    listKey,
    chosen: new Set<string>(),
    anchor: undefined as string | undefined,
    matching: false,
  });
  if (state.listKey !== listKey) {
    setState({ listKey, chosen: new Set(), anchor: undefined, matching: false });
  }
  const chosen = state.listKey === listKey ? state.chosen : new Set<string>();
  const rows = shown.filter((t) => chosen.has(rowKey(t)));
  /** Only rows still shown stay chosen. */
  const keep = (keys: Iterable<string>) => {
    const visible = new Set(shown.map(rowKey));
    return new Set([...keys].filter((k) => visible.has(k)));
  };

  return {
    rows,
    has: (t) => chosen.has(rowKey(t)),
    toggle: (t, range) => {
      const key = rowKey(t);
      const on = !chosen.has(key);
      const next = new Set(chosen);
      const from =
        state.anchor === undefined ? -1 : shown.findIndex((r) => rowKey(r) === state.anchor);
      const to = shown.findIndex((r) => rowKey(r) === key);
      const span =
        range && from >= 0 && to >= 0
          ? shown.slice(Math.min(from, to), Math.max(from, to) + 1)
          : [t];
      for (const r of span) {
        if (on) next.add(rowKey(r));
        else next.delete(rowKey(r));
      }
      setState({ listKey, chosen: keep(next), anchor: key, matching: false });
    },
    toggleAll: () => {
      const all = rows.length === shown.length && shown.length > 0;
      setState({
        listKey,
        chosen: all ? new Set() : new Set(shown.map(rowKey)),
        anchor: undefined,
        matching: false,
      });
    },
    clear: () => setState({ listKey, chosen: new Set(), anchor: undefined, matching: false }),
    matching: state.listKey === listKey && state.matching,
    selectMatching: () =>
      setState({ listKey, chosen: new Set(shown.map(rowKey)), anchor: undefined, matching: true }),
  };
}
