import type { Transaction, TransactionPage } from '@card-console/shared/api/transactions';
import type { Who } from '../../platform/sessions/who';
import type { TransactionListParams } from '../../upstream/client';
import type { FeatureDeps } from '../feature-deps';
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

/**
 * The card directory is read alongside the upstream call: it costs a read nothing once
 * filled, and only its very first fill can make a read wait (`card-directory.ts`).
 */
export function createTransactionsService({
  upstream,
  cardDirectory,
}: Pick<FeatureDeps, 'upstream' | 'cardDirectory'>) {
  return {
    async list(who: Who, input: TransactionFilter & { cursor?: string }): Promise<TransactionPage> {
      const [page] = await Promise.all([
        upstream.listTransactions(
          { requestId: who.requestId, trace: who.trace, role: who.actor.role },
          toUpstreamParams(input, input.cursor),
        ),
        cardDirectory.ready(),
      ]);
      const out: TransactionPage = {
        items: page.items.map((t) => toApiTransaction(t, cardDirectory)),
      };
      if (page.metadata.nextCursor) out.nextCursor = page.metadata.nextCursor;
      return out;
    },

    async get(who: Who, id: string): Promise<Transaction> {
      const [transaction] = await Promise.all([
        upstream.getTransaction(
          { requestId: who.requestId, trace: who.trace, role: who.actor.role },
          id,
        ),
        cardDirectory.ready(),
      ]);
      return toApiTransaction(transaction, cardDirectory);
    },
  };
}
