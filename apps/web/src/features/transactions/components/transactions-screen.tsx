import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type { Transaction } from '@card-console/shared/api/transactions';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { LoadMore } from '../../../components/load-more';
import { Pager } from '../../../components/pager';
import { useDocumentTitle } from '../../../components/use-document-title';
import { isApiError } from '../../../lib/api-error';
import { pageNumber, popCursor, pushCursor } from '../../../lib/cursor-stack';
import type { CardChoices } from '../../cards/api/use-card-choices';
import { EXPORT_INTERRUPTED, exportTransactionsCsv } from '../api/export-transactions-csv';
import type { TransactionFilter, TransactionsSearch } from '../transactions-search';
import { TransactionsFilters } from './transactions-filters';
import { TransactionsTable } from './transactions-table';

/** The rows shown: the URL's page and every page "Load more" appended after it. */
export interface TransactionList {
  rows: readonly Transaction[];
  /** After the last row shown; none at the end of the list. */
  nextCursor: string | undefined;
  loadingMore: boolean;
  loadMoreError: unknown;
  onLoadMore: () => void;
}

interface TransactionsScreenProps {
  search: TransactionsSearch;
  filter: TransactionFilter | undefined;
  list: TransactionList | undefined;
  subAccounts: SubAccount[];
  cards: CardChoices;
  /** The rows shown are the previous view's while the requested page loads. */
  busy: boolean;
}

export function TransactionsScreen(props: TransactionsScreenProps) {
  const { search, filter, list, subAccounts, cards, busy: loading } = props;
  const nextCursor = list?.nextCursor;
  useDocumentTitle('Transactions');
  const navigate = useNavigate();
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | undefined>();
  const go = (next: TransactionsSearch) => void navigate({ to: '/transactions', search: next });

  const onExport = async () => {
    if (!filter || exporting) return;
    setExporting(true);
    setExportError(undefined);
    try {
      const name = `transactions-${filter.subAccountId}-${search.from ?? 'start'}-${search.to ?? 'now'}.csv`;
      await exportTransactionsCsv(filter, name);
    } catch (error) {
      // An interrupted download's sentence says it all; other failures say what went wrong.
      if (isApiError(error) && error.code === EXPORT_INTERRUPTED) setExportError(error.message);
      else setExportError(`Export failed: ${error instanceof Error ? error.message : 'unknown'}`);
    } finally {
      setExporting(false);
    }
  };

  return (
    <section aria-labelledby="transactions-title">
      <div className="screen-header">
        <h1 id="transactions-title">Transactions</h1>
        {/* Busy, not disabled, while it runs: a disabled button would drop the focus to the page. */}
        <button
          type="button"
          onClick={onExport}
          disabled={!filter}
          aria-disabled={exporting || undefined}
        >
          {exporting ? 'Exporting…' : 'Export CSV'}
        </button>
      </div>
      {exportError ? (
        <p className="form-error" role="alert">
          {exportError}
        </p>
      ) : null}
      {subAccounts.length === 0 ? (
        <p className="empty">There are no sub accounts, so there are no transactions to show.</p>
      ) : (
        <>
          <TransactionsFilters
            search={search}
            subAccounts={subAccounts}
            cards={cards}
            onChange={go}
          />
          {!list || list.rows.length === 0 ? (
            <p className="empty">No transactions match these filters.</p>
          ) : (
            <>
              <TransactionsTable
                rows={list.rows}
                cards={cards.cards}
                search={search}
                busy={loading || list.loadingMore}
              />
              <LoadMore
                shown={list.rows.length}
                noun={['transaction', 'transactions']}
                hasMore={nextCursor !== undefined}
                loading={list.loadingMore}
                waiting={loading}
                error={list.loadMoreError}
                onLoadMore={list.onLoadMore}
              />
            </>
          )}
          {/* Next continues after the last row shown, appended ones included. */}
          <Pager
            label="Transactions"
            page={pageNumber(search.cursors)}
            hasPrevious={(search.cursors?.length ?? 0) > 0}
            hasNext={nextCursor !== undefined && !list?.loadingMore}
            busy={loading}
            onPrevious={() => go({ ...search, cursors: popCursor(search.cursors) })}
            onNext={() =>
              nextCursor && go({ ...search, cursors: pushCursor(search.cursors, nextCursor) })
            }
          />
        </>
      )}
    </section>
  );
}
