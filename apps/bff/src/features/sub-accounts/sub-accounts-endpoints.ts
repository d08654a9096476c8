import { defineFeature } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import type { FeatureDeps } from '../feature-deps';
import { createSubAccountsService } from './sub-accounts-service';

export const subAccountsFeature = defineFeature(
  'sub-accounts',
  (deps: FeatureDeps) => createSubAccountsService(deps),
  (endpoint) => [
    endpoint('subAccounts.list', {
      summary: 'A page of sub accounts with their balances and spend',
      example: '/api/sub-accounts',
      handler: ({ req, services, query }) => services.list(who(req), query),
    }),
    endpoint('subAccounts.create', {
      summary: 'Create a sub account (its name unique, case and spacing aside)',
      attempted: 'subAccount.create',
      example: '/api/sub-accounts',
      status: 201,
      handler: ({ req, services, body }) => services.create(who(req), body),
    }),
  ],
);
