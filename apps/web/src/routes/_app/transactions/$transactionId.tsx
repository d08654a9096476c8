import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';
import { DeadEnd } from '../../../components/dead-end';
import { accountingCategoriesQueryOptions } from '../../../features/accounting-categories/api/get-accounting-categories';
import { subAccountsQueryOptions } from '../../../features/sub-accounts/api/get-sub-accounts';
import { notesQueryOptions } from '../../../features/transactions/api/get-notes';
import { transactionQueryOptions } from '../../../features/transactions/api/get-transaction';
import { TransactionDetailScreen } from '../../../features/transactions/components/transaction-detail-screen';
import { validateTransactionsSearch } from '../../../features/transactions/transactions-search';
import { ensureOrNotFound } from '../../../lib/ensure-or-not-found';

export const Route = createFileRoute('/_app/transactions/$transactionId')({
  // Carries the list's filters so "back" returns to exactly that list.
  validateSearch: validateTransactionsSearch,
  loader: ({ context, params }) => {
    // The notes are asked for at once but not waited for: their panel shows its own loading or
    // error, and the transaction shows even when its notes cannot be read.
    void context.queryClient.prefetchQuery(notesQueryOptions(params.transactionId));
    void context.queryClient.prefetchQuery(accountingCategoriesQueryOptions());
    void context.queryClient.prefetchQuery(subAccountsQueryOptions());
    return ensureOrNotFound(context.queryClient, transactionQueryOptions(params.transactionId));
  },
  notFoundComponent: TransactionNotFound,
  // The screen and its "not found" in one chunk: a chunk of its own re-split the first
  // download (0.5 kB more, gzipped).
  codeSplitGroupings: [['component', 'notFoundComponent'], ['errorComponent']],
  component: TransactionDetailRoute,
});

function TransactionDetailRoute() {
  const { transactionId } = Route.useParams();
  const search = Route.useSearch();
  const { data } = useSuspenseQuery(transactionQueryOptions(transactionId));
  // Names the transaction's sub account once known; the detail does not wait for it.
  const subAccounts = useQuery(subAccountsQueryOptions()).data;
  // Keyed: the next transaction of a queue is a new screen (its form, its messages).
  return (
    <TransactionDetailScreen
      key={transactionId}
      transaction={data}
      listSearch={search}
      subAccounts={subAccounts}
    />
  );
}

function TransactionNotFound() {
  const listSearch = Route.useSearch();
  return (
    <DeadEnd
      title="Transaction not found"
      back={
        <Link to="/transactions" search={listSearch}>
          ← Back to Transactions
        </Link>
      }
    >
      There is no transaction at this address. The link may be mistyped, or from another card
      program.
    </DeadEnd>
  );
}
