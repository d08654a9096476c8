import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { transactionQueryOptions } from '../../../features/transactions/api/get-transaction';
import { TransactionDetailScreen } from '../../../features/transactions/components/transaction-detail-screen';
import { validateTransactionsSearch } from '../../../features/transactions/transactions-search';

export const Route = createFileRoute('/_app/transactions/$transactionId')({
  // Carries the list's filters so "back" returns to exactly that list.
  validateSearch: validateTransactionsSearch,
  loader: ({ context, params }) =>
    context.queryClient.ensureQueryData(transactionQueryOptions(params.transactionId)),
  component: TransactionDetailRoute,
});

function TransactionDetailRoute() {
  const { transactionId } = Route.useParams();
  const search = Route.useSearch();
  const { data } = useSuspenseQuery(transactionQueryOptions(transactionId));
  return <TransactionDetailScreen transaction={data} listSearch={search} />;
}
