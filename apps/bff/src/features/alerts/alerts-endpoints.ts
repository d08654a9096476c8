import { resourceIdSchema } from '@card-console/shared/upstream/common';
import { defineFeature } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import { alertRuleInputSchema, alertRuleUpdateSchema } from './alert-rules';
import { createAlertsService } from './alerts-service';
import { webhookTargetBodySchema } from './webhook-target-input';

/**
 * Alert rules and the in-app inbox (`packages/shared/src/api/alerts.ts` lists the endpoints).
 * Anyone signed in keeps their own rules and inbox; who may set team rules or webhooks is the
 * service's check (`alert-rules.ts`), answered 403 with the reason. Adding or removing a webhook
 * target needs a recent second factor, as People changes do (401 `step_up_required`).
 */
export const alertsFeature = defineFeature('alerts', createAlertsService, (endpoint) => [
  endpoint('alerts.rules', {
    summary: "The caller's own alert rules and the team's, oldest first",
    example: '/api/alerts/rules',
    handler: async ({ req, services }) => ({ items: await services.rules(who(req)) }),
  }),
  endpoint('alerts.createRule', {
    summary: 'Add an alert rule for yourself (admins: also for the team, or to a webhook target)',
    attempted: 'alertRules.change',
    example: '/api/alerts/rules',
    body: alertRuleInputSchema,
    status: 201,
    handler: ({ req, services, body }) => services.createRule(who(req), body),
  }),
  endpoint('alerts.updateRule', {
    summary: 'Replace an alert rule, refused with the rule as it is if it changed since `version`',
    attempted: 'alertRules.change',
    example: '/api/alerts/rules/{ruleId}',
    body: alertRuleUpdateSchema,
    handler: ({ req, services, params, body }) => services.updateRule(who(req), params.id, body),
  }),
  endpoint('alerts.deleteRule', {
    summary: 'Remove an alert rule at `version` (the alerts it raised stay in inboxes)',
    attempted: 'alertRules.change',
    example: '/api/alerts/rules/{ruleId}?version=1',
    handler: ({ req, services, params, query }) =>
      services.deleteRule(who(req), params.id, query.version),
  }),
  endpoint('alerts.testRule', {
    summary:
      'Send a test of a rule (on or off) through its channels, to the caller alone: an example of what it sends',
    attempted: 'alertRules.change',
    example: '/api/alerts/rules/{ruleId}/test',
    refusals: {
      action: 'alertRule.test',
      target: (req) => {
        const id = req.params?.id;
        return typeof id === 'string' && resourceIdSchema.safeParse(id).success ? id : undefined;
      },
      limit: { limiter: 'alertTestsPerUser', message: 'Too many test alerts; wait a minute.' },
    },
    status: 201,
    handler: ({ req, services, params }) => services.testRule(who(req), params.id),
  }),
  endpoint('alerts.inbox', {
    summary: "A page of the caller's alerts, newest first (`unread=1`: unread only)",
    example: '/api/alerts/inbox',
    handler: ({ req, services, query }) => services.inbox(who(req), query),
  }),
  endpoint('alerts.unreadCount', {
    summary: "How many of the caller's alerts are unread",
    example: '/api/alerts/inbox/unread-count',
    handler: ({ req, services }) => services.unreadCount(who(req)),
  }),
  endpoint('alerts.markRead', {
    summary: "Mark some of the caller's alerts read (`ids`), or all of them",
    attempted: 'alerts.markRead',
    example: '/api/alerts/inbox/read',
    handler: ({ req, services, body }) => services.markRead(who(req), body),
  }),
  endpoint('alerts.webhooks', {
    summary: 'The webhook targets alerts can be sent to (never their secrets)',
    attempted: 'webhookTargets.change',
    example: '/api/alerts/webhooks',
    handler: async ({ services }) => ({ items: await services.webhookTargets() }),
  }),
  endpoint('alerts.createWebhook', {
    summary:
      'Add a webhook target (a recent second factor needed); the answer holds its signing secret, shown this once',
    attempted: 'webhookTargets.change',
    example: '/api/alerts/webhooks',
    body: webhookTargetBodySchema,
    status: 201,
    handler: ({ req, res, services, body }) =>
      services.createWebhookTarget(who(req), body, () => services.stepUp.require(req, res)),
  }),
  endpoint('alerts.deleteWebhook', {
    summary: 'Remove a webhook target no rule sends to (a recent second factor needed)',
    attempted: 'webhookTargets.change',
    example: '/api/alerts/webhooks/{webhookTargetId}',
    handler: ({ req, res, services, params }) =>
      services.deleteWebhookTarget(who(req), params.id, () => services.stepUp.require(req, res)),
  }),
]);
