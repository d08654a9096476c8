import { defineFeature } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import { type ClosePolicyDeps, createClosePolicyService } from './close-policy-service';

/**
 * The month close's policy: from what size money moved needs a receipt, and which accounting
 * categories' transactions need a memo. Everyone reads it ("Needs attention" counts by it),
 * admins set it.
 */
export const closePolicyFeature = defineFeature(
  'close-policy',
  (deps: ClosePolicyDeps) => createClosePolicyService(deps),
  (endpoint) => [
    endpoint('closePolicy.get', {
      summary:
        'The close policy: receipts needed from an amount (or none), the categories whose transactions need a memo',
      example: '/api/close-policy',
      handler: ({ services }) => services.get(),
    }),
    endpoint('closePolicy.update', {
      summary: 'Set the close policy (its memo categories current ones of the chart of accounts)',
      attempted: 'closePolicy.change',
      example: '/api/close-policy',
      handler: ({ req, services, body }) => services.update(who(req), body),
    }),
  ],
);
