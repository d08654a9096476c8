import {
  alertRuleDeleteQuerySchema,
  alertRuleListSchema,
  alertRuleSchema,
  inboxPageSchema,
  inboxQuerySchema,
  markReadResultSchema,
  markReadSchema,
  unreadCountSchema,
  webhookTargetCreatedSchema,
  webhookTargetListSchema,
} from '@card-console/shared/api/alerts';
import { resourceIdSchema } from '@card-console/shared/upstream/common';
import { z } from 'zod';
import { admins, defineFeature, everyone } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import { alertRuleInputSchema, alertRuleUpdateSchema } from './alert-rules';
import { createAlertsService } from './alerts-service';
import { webhookTargetBodySchema } from './webhook-target-input';

const ruleId = { id: resourceIdSchema };

/**
 * Alert rules and the in-app inbox (`packages/shared/src/api/alerts.ts` lists the endpoints).
 * Anyone signed in keeps their own rules and inbox; who may set team rules or webhooks is the
 * service's check (`alert-rules.ts`), answered 403 with the reason. Adding or removing a webhook
 * target needs a recent second factor, as People changes do (401 `step_up_required`).
 */
export const alertsFeature = defineFeature('alerts', createAlertsService, (endpoint) => [
  endpoint({
    method: 'GET',
    path: '/alerts/rules',
    summary: "The caller's own alert rules and the team's, oldest first",
    access: everyone,
    mutation: false,
    example: '/api/alerts/rules',
    response: alertRuleListSchema,
    handler: async ({ req, services }) => ({ items: await services.rules(who(req)) }),
  }),
  endpoint({
    method: 'POST',
    path: '/alerts/rules',
    summary: 'Add an alert rule for yourself (admins: also for the team, or to a webhook target)',
    access: everyone,
    mutation: true,
    attempted: 'alertRules.change',
    example: '/api/alerts/rules',
    body: alertRuleInputSchema,
    response: alertRuleSchema,
    status: 201,
    handler: ({ req, services, body }) => services.createRule(who(req), body),
  }),
  endpoint({
    method: 'PUT',
    path: '/alerts/rules/:id',
    summary: 'Replace an alert rule, refused with the rule as it is if it changed since `version`',
    access: everyone,
    mutation: true,
    attempted: 'alertRules.change',
    example: '/api/alerts/rules/{ruleId}',
    params: ruleId,
    body: alertRuleUpdateSchema,
    response: alertRuleSchema,
    handler: ({ req, services, params, body }) => services.updateRule(who(req), params.id, body),
  }),
  endpoint({
    method: 'DELETE',
    path: '/alerts/rules/:id',
    summary: 'Remove an alert rule at `version` (the alerts it raised stay in inboxes)',
    access: everyone,
    mutation: true,
    attempted: 'alertRules.change',
    example: '/api/alerts/rules/{ruleId}?version=1',
    params: ruleId,
    query: alertRuleDeleteQuerySchema,
    response: z.undefined(),
    handler: ({ req, services, params, query }) =>
      services.deleteRule(who(req), params.id, query.version),
  }),
  endpoint({
    method: 'GET',
    path: '/alerts/inbox',
    summary: "A page of the caller's alerts, newest first (`unread=1`: unread only)",
    access: everyone,
    mutation: false,
    example: '/api/alerts/inbox',
    query: inboxQuerySchema,
    response: inboxPageSchema,
    handler: ({ req, services, query }) => services.inbox(who(req), query),
  }),
  endpoint({
    method: 'GET',
    path: '/alerts/inbox/unread-count',
    summary: "How many of the caller's alerts are unread",
    access: everyone,
    mutation: false,
    example: '/api/alerts/inbox/unread-count',
    response: unreadCountSchema,
    handler: ({ req, services }) => services.unreadCount(who(req)),
  }),
  endpoint({
    method: 'POST',
    path: '/alerts/inbox/read',
    summary: "Mark some of the caller's alerts read (`ids`), or all of them",
    access: everyone,
    mutation: true,
    attempted: 'alerts.markRead',
    example: '/api/alerts/inbox/read',
    body: markReadSchema,
    response: markReadResultSchema,
    handler: ({ req, services, body }) => services.markRead(who(req), body),
  }),
  endpoint({
    method: 'GET',
    path: '/alerts/webhooks',
    summary: 'The webhook targets alerts can be sent to (never their secrets)',
    access: admins,
    mutation: false,
    attempted: 'webhookTargets.change',
    example: '/api/alerts/webhooks',
    response: webhookTargetListSchema,
    handler: async ({ services }) => ({ items: await services.webhookTargets() }),
  }),
  endpoint({
    method: 'POST',
    path: '/alerts/webhooks',
    summary:
      'Add a webhook target (a recent second factor needed); the answer holds its signing secret, shown this once',
    access: admins,
    mutation: true,
    attempted: 'webhookTargets.change',
    example: '/api/alerts/webhooks',
    body: webhookTargetBodySchema,
    response: webhookTargetCreatedSchema,
    status: 201,
    handler: ({ req, res, services, body }) =>
      services.createWebhookTarget(who(req), body, () => services.stepUp.require(req, res)),
  }),
  endpoint({
    method: 'DELETE',
    path: '/alerts/webhooks/:id',
    summary: 'Remove a webhook target no rule sends to (a recent second factor needed)',
    access: admins,
    mutation: true,
    attempted: 'webhookTargets.change',
    example: '/api/alerts/webhooks/{webhookTargetId}',
    params: ruleId,
    response: z.undefined(),
    handler: ({ req, res, services, params }) =>
      services.deleteWebhookTarget(who(req), params.id, () => services.stepUp.require(req, res)),
  }),
]);
