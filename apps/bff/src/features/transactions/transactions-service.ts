import type { Transaction, TransactionPage } from '@card-console/shared/api/transactions';
import type { Who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import type { TransactionListParams } from '../../upstream/client';
import { toApiTransaction } from './transaction-mapper';

/** The BFF's filter names (`from`, `to`, `cardId`) as the client's upstream parameters. */
export interface TransactionFilter {
  subAccountId: string;
  from?: number;
  to?: number;
  status?: string;
  cardId?: string;
}

export function toUpstreamParams(
  filter: TransactionFilter,
  cursor?: string,
): TransactionListParams {
  return {
    subAccountId: filter.subAccountId,
    fromDate: filter.from,
    toDate: filter.to,
    status: filter.status,
    cardId: filter.cardId,
    cursor,
  };
}

export function createTransactionsService({ upstream }: Pick<FeatureDeps, 'upstream'>) {
  return {
    async list(who: Who, input: TransactionFilter & { cursor?: string }): Promise<TransactionPage> {
      const page = await upstream.listTransactions(
        { requestId: who.requestId, trace: who.trace, role: who.actor.role },
        toUpstreamParams(input, input.cursor),
      );
      const out: TransactionPage = { items: page.items.map(toApiTransaction) };
      if (page.metadata.nextCursor) out.nextCursor = page.metadata.nextCursor;
      return out;
    },

    async get(who: Who, id: string): Promise<Transaction> {
      return toApiTransaction(
        await upstream.getTransaction(
          { requestId: who.requestId, trace: who.trace, role: who.actor.role },
          id,
        ),
      );
    },
  };
}
