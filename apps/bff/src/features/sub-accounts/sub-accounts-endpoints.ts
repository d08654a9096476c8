import {
  subAccountCreateBodySchema,
  subAccountCreatedSchema,
  subAccountListQuerySchema,
  subAccountPageSchema,
} from '@card-console/shared/api/sub-accounts';
import { admins, defineFeature, everyone } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import type { FeatureDeps } from '../feature-deps';
import { createSubAccountsService } from './sub-accounts-service';

export const subAccountsFeature = defineFeature(
  'sub-accounts',
  (deps: FeatureDeps) => createSubAccountsService(deps),
  (endpoint) => [
    endpoint({
      method: 'GET',
      path: '/sub-accounts',
      summary: 'A page of sub accounts with their balances and spend',
      access: everyone,
      mutation: false,
      example: '/api/sub-accounts',
      query: subAccountListQuerySchema,
      response: subAccountPageSchema,
      handler: ({ req, services, query }) => services.list(who(req), query),
    }),
    endpoint({
      method: 'POST',
      path: '/sub-accounts',
      summary: 'Create a sub account (its name unique, case and spacing aside)',
      access: admins,
      mutation: true,
      attempted: 'subAccount.create',
      example: '/api/sub-accounts',
      body: subAccountCreateBodySchema,
      response: subAccountCreatedSchema,
      status: 201,
      handler: ({ req, services, body }) => services.create(who(req), body),
    }),
  ],
);
