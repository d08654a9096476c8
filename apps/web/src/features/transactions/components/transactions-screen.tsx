import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type { Transaction } from '@card-console/shared/api/transactions';
import { useNavigate } from '@tanstack/react-router';
import { PagedListFooter } from '../../../components/paged-list-footer';
import { SearchNotice } from '../../../components/search-notice';
import { useDocumentTitle } from '../../../components/use-document-title';
import type { PagedList } from '../../../lib/use-url-pages';
import type { CardChoices } from '../../cards/api/use-card-choices';
import type { TransactionFilter, TransactionsSearch } from '../transactions-search';
import { ExportButton } from './export-button';
import { TransactionsFilters } from './transactions-filters';
import { TRANSACTIONS_SEARCH_WORDS } from './transactions-search-words';
import { TransactionsTable } from './transactions-table';

interface TransactionsScreenProps {
  search: TransactionsSearch;
  filter: TransactionFilter | undefined;
  /** The rows shown: the list's first `pages` pages. */
  list: PagedList<Transaction> | undefined;
  subAccounts: SubAccount[];
  cards: CardChoices;
  /** The rows shown are the previous filter's while the new list loads. */
  busy: boolean;
}

export function TransactionsScreen(props: TransactionsScreenProps) {
  const { search, filter, list, subAccounts, cards, busy } = props;
  useDocumentTitle('Transactions');
  const navigate = useNavigate();
  const go = (next: TransactionsSearch) => void navigate({ to: '/transactions', search: next });
  const subAccount = subAccounts.find((s) => s.id === search.subAccountId);
  const empty = !list || list.rows.length === 0;

  return (
    <section aria-labelledby="transactions-title">
      <div className="screen-header">
        <h1 id="transactions-title">Transactions</h1>
        <ExportButton
          filter={filter}
          search={search}
          subAccountName={subAccount?.name}
          blocked={
            !filter
              ? 'Nothing to export: no sub account to export from.'
              : empty && !busy
                ? 'Nothing to export: no transactions match these filters.'
                : undefined
          }
        />
      </div>
      <SearchNotice words={TRANSACTIONS_SEARCH_WORDS} />
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
          {!list || empty ? (
            <p className="empty" aria-busy={busy || undefined}>
              No transactions match these filters.
            </p>
          ) : (
            <>
              <TransactionsTable
                rows={list.rows}
                cards={cards.cards}
                search={search}
                busy={busy || list.loadingMore}
              />
              <PagedListFooter
                list={list}
                noun={['transaction', 'transactions']}
                busy={busy}
                capHint="Narrow the dates or filters, or export the whole list as CSV."
              />
            </>
          )}
        </>
      )}
    </section>
  );
}
