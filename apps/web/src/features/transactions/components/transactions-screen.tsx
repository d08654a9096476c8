import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type {
  IndexPage,
  IndexQuery,
  IndexTotalsAnswer,
  IndexTransaction,
} from '@card-console/shared/api/transaction-index';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { ListNotLoaded } from '../../../components/list-not-loaded';
import { PagedListFooter } from '../../../components/paged-list-footer';
import { SearchNotice } from '../../../components/search-notice';
import { useDocumentTitle } from '../../../components/use-document-title';
import { useNarrow } from '../../../components/use-narrow';
import type { PagedList } from '../../../lib/use-url-pages';
import { accountingCategoriesQueryOptions } from '../../accounting-categories/api/get-accounting-categories';
import type { CardChoices } from '../../cards/api/use-card-choices';
import { matchingFilter } from '../api/update-matching-notes';
import type { TransactionsSearch } from '../transactions-search';
import { ActiveFilters } from './active-filters';
import { BulkActions } from './bulk-actions';
import { ClosePresetsBar } from './close-presets-bar';
import { ExportButton } from './export-button';
import { TableViewControls } from './table-view-controls';
import { TransactionsFilters } from './transactions-filters';
import { TRANSACTIONS_SEARCH_WORDS } from './transactions-search-words';
import { TransactionsSummary } from './transactions-summary';
import { TransactionsTable } from './transactions-table';
import { useRowSelection } from './use-row-selection';
import { useTableView } from './use-table-view';

interface TransactionsScreenProps {
  search: TransactionsSearch;
  /** The index's query for `search` (days as instants in the person's zone). */
  query: IndexQuery;
  /** The days shown, YYYY-MM-DD (a preset's, or the custom ones). */
  days: { from?: string | undefined; to?: string | undefined };
  /** The rows shown: the list's first `pages` pages; undefined until the first arrives. */
  list: PagedList<IndexTransaction> | undefined;
  /** The first page's answer: its rows and how fresh they are. */
  answer: IndexPage | undefined;
  /** The whole set's count, sums and totals by a dimension: a second answer, maybe later. */
  totals: IndexTotalsAnswer | undefined;
  /** Why the figures did not load (the rows may have). */
  totalsError?: unknown;
  /** The figures shown are the previous filter's, or being asked again. */
  totalsBusy: boolean;
  /** Why the first page did not load: shown in the list's place, the filters kept. */
  error?: unknown;
  onRetry?: () => void;
  subAccounts: SubAccount[];
  cards: CardChoices;
  /** The rows shown are the previous filter's while the new list loads (or the first loads). */
  busy: boolean;
}

const NO_ROWS: readonly IndexTransaction[] = [];

/**
 * Transactions, from the BFF's index: every sub account or one, searched and filtered by
 * anything a row holds (its notes too), with the whole set's count and sums. A row opens the
 * transaction as the card service has it now; rows selected change their notes together.
 */
export function TransactionsScreen(props: TransactionsScreenProps) {
  const { search, query, days, list, answer, totals, error, onRetry, subAccounts, cards, busy } =
    props;
  useDocumentTitle('Transactions');
  const navigate = useNavigate();
  const go = (next: TransactionsSearch, options?: { replace?: boolean }) =>
    void navigate({ to: '/transactions', search: next, ...options });
  const subAccount = subAccounts.find((s) => s.id === search.subAccountId);
  const rows = list?.rows ?? NO_ROWS;
  const empty = list !== undefined && rows.length === 0;
  const several = search.subAccountId === undefined && subAccounts.length !== 1;
  const categories = useQuery(accountingCategoriesQueryOptions()).data;
  const listKey = JSON.stringify(query);
  const selection = useRowSelection(rows, listKey);
  const bulk = useBulkResult(listKey, selection.rows.length > 0);
  // On a phone the rows' boxes show in Select mode only (a visible button, not a hidden header).
  const narrow = useNarrow();
  const [selectMode, setSelectMode] = useState(false);
  const selecting = !narrow || selectMode || selection.rows.length > 0;
  const matchingCount = totals?.summary.count;
  const allShown = rows.length > 0 && selection.rows.length === rows.length;
  const table = useTableView();
  const endSelecting = () => {
    selection.clear();
    setSelectMode(false);
  };

  return (
    <section aria-labelledby="transactions-title">
      <div className="screen-header">
        <h1 id="transactions-title">Transactions</h1>
        <ClosePresetsBar search={search} days={days} onChange={go} />
        <ExportButton
          query={query}
          days={days}
          subAccountName={subAccount?.name}
          posted={totals?.summary.posted}
          blocked={
            totals?.summary.count === 0 && !props.totalsBusy
              ? 'Nothing to export: no transactions match these filters.'
              : undefined
          }
        />
        {/* Beside Export, not a row of its own over the table: 15 rows still fit at 1280×800. */}
        <TableViewControls table={table} subAccountColumn={several} />
      </div>
      <SearchNotice words={TRANSACTIONS_SEARCH_WORDS} />
      {subAccounts.length === 0 ? (
        <p className="empty">There are no sub accounts, so there are no transactions to show.</p>
      ) : null}
      <TransactionsFilters
        search={search}
        subAccounts={subAccounts}
        cards={cards}
        categories={categories}
        onChange={go}
      />
      <ActiveFilters
        search={search}
        cards={cards}
        subAccounts={subAccounts}
        accounts={categories}
        onChange={go}
      />
      {answer ? (
        <TransactionsSummary
          freshness={answer.freshness}
          totals={totals}
          totalsError={props.totalsError}
          query={query}
          search={search}
          subAccounts={subAccounts}
          busy={busy || props.totalsBusy}
          onChange={(next) => go({ ...next, pages: undefined })}
        />
      ) : null}
      <div className="list-area">
        {/* Before the rows for the keyboard (a few Shift+Tabs from a checkbox, not a page of
            rows); drawn after them, at the foot of the window while the list scrolls. */}
        <div className="bulk-dock">
          <div role="status" aria-live="polite">
            {bulk.result ? (
              <p
                ref={bulk.resultRef}
                tabIndex={-1}
                className={bulk.result.failed ? 'form-error bulk-result' : 'notice bulk-result'}
              >
                <span>{bulk.result.text}</span>
                <button type="button" className="link-button" onClick={bulk.dismiss}>
                  Dismiss
                </button>
              </p>
            ) : null}
          </div>
          {selection.rows.length > 0 ? (
            <BulkActions
              // A new choice of rows (or of every matching one) starts a new bar.
              key={selection.matching ? 'matching' : 'rows'}
              selected={selection.rows}
              matching={
                selection.matching && matchingCount !== undefined
                  ? { filter: matchingFilter(query), count: matchingCount }
                  : undefined
              }
              moreMatching={
                allShown && matchingCount !== undefined && matchingCount > rows.length
                  ? { count: matchingCount, onSelect: selection.selectMatching }
                  : undefined
              }
              categories={categories}
              onClear={endSelecting}
              onResult={bulk.show}
            />
          ) : narrow && list && !empty ? (
            <div className="select-mode">
              {selectMode ? (
                <>
                  <span className="muted">Tap rows to select them, or</span>
                  <button type="button" onClick={selection.toggleAll}>
                    Select all {rows.length.toLocaleString('en-US')} shown
                  </button>
                  <button type="button" className="link-button" onClick={endSelecting}>
                    Done
                  </button>
                </>
              ) : (
                <button type="button" onClick={() => setSelectMode(true)}>
                  Select
                </button>
              )}
            </div>
          ) : null}
        </div>
        {!list ? (
          <ListNotLoaded error={error} busy={busy} onRetry={onRetry} />
        ) : empty ? (
          <p className="empty" aria-busy={busy || undefined}>
            {answer?.freshness.syncing
              ? 'No transactions found yet: the sync is still reading the card service.'
              : answer?.freshness.failed && answer.freshness.updatedAt === undefined
                ? 'No transactions found yet: the sync stopped before it was done (why, above).'
                : 'No transactions match these filters.'}
          </p>
        ) : (
          <>
            <TransactionsTable
              rows={rows}
              cards={cards.cards}
              subAccountNames={
                several ? new Map(subAccounts.map((s) => [s.id, s.name])) : undefined
              }
              search={search}
              onSort={(sort) => go({ ...search, ...sort, pages: undefined })}
              categories={categories}
              selection={selection}
              selecting={selecting}
              tapSelects={narrow && selecting}
              busy={busy || list.loadingMore}
              view={table.view}
            />
            <PagedListFooter
              list={list}
              noun={['transaction', 'transactions']}
              busy={busy}
              capHint="Narrow the dates or filters, or export the whole list as CSV."
            />
          </>
        )}
      </div>
    </section>
  );
}

/**
 * What the last change of a selection did, until another list is shown or it is dismissed.
 * When the change took every selected row out of the list (marked reviewed in the unreviewed
 * list), the bar that had the focus is gone: the focus goes to the result.
 */
function useBulkResult(listKey: string, selecting: boolean) {
  const [state, setState] = useState<{
    listKey: string;
    result?: { text: string; failed?: boolean };
  }>({ listKey });
  if (state.listKey !== listKey) setState({ listKey });
  const resultRef = useRef<HTMLParagraphElement>(null);
  const wasSelecting = useRef(selecting);
  useEffect(() => {
    const lostFocus = document.activeElement === document.body || !document.activeElement;
    if (wasSelecting.current && !selecting && lostFocus) resultRef.current?.focus();
    wasSelecting.current = selecting;
  }, [selecting]);
  return {
    result: state.listKey === listKey ? state.result : undefined,
    resultRef,
    show: (result: { text: string; failed?: boolean }) => setState({ listKey, result }),
    dismiss: () => setState({ listKey }),
  };
}
