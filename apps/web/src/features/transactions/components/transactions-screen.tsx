import type { Card } from '@card-console/shared/api/cards';
import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type { TransactionPage } from '@card-console/shared/api/transactions';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { Pager } from '../../../components/pager';
import { useDocumentTitle } from '../../../components/use-document-title';
import { pageNumber, popCursor, pushCursor } from '../../../lib/cursor-stack';
import { exportTransactionsCsv } from '../api/export-transactions-csv';
import type { TransactionFilter, TransactionsSearch } from '../transactions-search';
import { TransactionsFilters } from './transactions-filters';
import { TransactionsTable } from './transactions-table';

interface TransactionsScreenProps {
  search: TransactionsSearch;
  filter: TransactionFilter | undefined;
  page: TransactionPage | undefined;
  subAccounts: SubAccount[];
  cards: Card[];
  /** The page shown is the previous one while the requested one loads. */
  busy: boolean;
}

export function TransactionsScreen(props: TransactionsScreenProps) {
  const { search, filter, page, subAccounts, cards, busy: loading } = props;
  useDocumentTitle('Transactions');
  const navigate = useNavigate();
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | undefined>();
  const go = (next: TransactionsSearch) => void navigate({ to: '/transactions', search: next });

  const onExport = async () => {
    if (!filter) return;
    setExporting(true);
    setExportError(undefined);
    try {
      const name = `transactions-${filter.subAccountId}-${search.from ?? 'start'}-${search.to ?? 'now'}.csv`;
      await exportTransactionsCsv(filter, name);
    } catch (error) {
      setExportError(error instanceof Error ? error.message : 'The export failed.');
    } finally {
      setExporting(false);
    }
  };

  return (
    <section aria-labelledby="transactions-title">
      <div className="screen-header">
        <h1 id="transactions-title">Transactions</h1>
        <button type="button" onClick={onExport} disabled={!filter || exporting}>
          {exporting ? 'Exporting…' : 'Export CSV'}
        </button>
      </div>
      {exportError ? (
        <p className="form-error" role="alert">
          Export failed: {exportError}
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
          {!page || page.items.length === 0 ? (
            <p className="empty">No transactions match these filters.</p>
          ) : (
            <TransactionsTable rows={page.items} cards={cards} search={search} busy={loading} />
          )}
          <Pager
            label="Transactions"
            page={pageNumber(search.cursors)}
            hasPrevious={(search.cursors?.length ?? 0) > 0}
            hasNext={page?.nextCursor !== undefined}
            busy={loading}
            onPrevious={() => go({ ...search, cursors: popCursor(search.cursors) })}
            onNext={() =>
              page?.nextCursor &&
              go({ ...search, cursors: pushCursor(search.cursors, page.nextCursor) })
            }
          />
        </>
      )}
    </section>
  );
}
