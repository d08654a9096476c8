import { indexAnswerSchema, indexQuerySchema } from '@card-console/shared/api/transaction-index';
import { defineFeature, everyone } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import { createIndexSearchService, type IndexSearchDeps } from './index-search-service';

export const transactionIndexFeature = defineFeature(
  'transaction-index',
  (deps: IndexSearchDeps) => ({ search: createIndexSearchService(deps) }),
  (endpoint) => [
    endpoint({
      method: 'GET',
      path: '/index/transactions',
      summary:
        "Transactions of every sub account (or those named) from the BFF's index: searched, filtered, sorted, with the whole set's count and sums and how fresh they are",
      access: everyone,
      mutation: false,
      example: '/api/index/transactions?status=declined&status=failed&sort=amount',
      query: indexQuerySchema,
      response: indexAnswerSchema,
      handler: ({ req, services, query }) => services.search.search(who(req), query),
    }),
  ],
);
