import { useSuspenseInfiniteQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { auditQueryOptions } from '../../features/audit/api/get-audit';
import { AuditScreen } from '../../features/audit/components/audit-screen';

export const Route = createFileRoute('/_app/audit')({
  loader: ({ context }) => context.queryClient.ensureInfiniteQueryData(auditQueryOptions()),
  component: AuditRoute,
});

function AuditRoute() {
  const query = useSuspenseInfiniteQuery(auditQueryOptions());
  return (
    <AuditScreen
      records={query.data.pages.flatMap((p) => p.items)}
      hasMore={query.hasNextPage}
      loadingMore={query.isFetchingNextPage}
      loadMoreError={query.isFetchNextPageError ? query.error : undefined}
      onLoadMore={() => void query.fetchNextPage()}
    />
  );
}
