import type {
  AlertRuleView,
  AlertTestResult,
  InboxItem as InboxItemView,
  InboxPage,
  MarkRead,
  MarkReadResult,
  WebhookTargetCreated,
  WebhookTargetInput,
  WebhookTargetView,
} from '@card-console/shared/api/alerts';
import { AppError, problemCode } from '../../core/app-error';
import { AuditUnavailableError, auditedChange } from '../../platform/audit/audited-change';
import {
  type WebhookPolicy,
  WebhookTargetError,
  webhookTarget,
} from '../../platform/notify/webhook-target';
import { withCardNumbersMasked } from '../../platform/security/card-number-ids';
import type { Who } from '../../platform/sessions/who';
import type { FeatureDeps } from '../feature-deps';
import { subAccountExists } from '../sub-accounts';
import {
  DEFAULT_RULES_PER_OWNER,
  IdenticalAlertRuleError,
  limitProblem,
} from './alert-rule-limits';
import {
  type AlertRule,
  type AlertRuleInput,
  type AlertRuleRefusal,
  mayChangeRule,
  maySaveRule,
} from './alert-rules';
import {
  AlertRuleConflictError,
  AlertRuleNotFoundError,
  type AlertStores,
  BadInboxCursorError,
  type InboxItem,
  type RaisedAlert,
} from './alert-store';
import { ruleNameFor } from './rule-name-for';
import { WebhookTargetExistsError } from './webhook-targets';

export interface AlertsDeps
  extends Pick<FeatureDeps, 'audit' | 'clock' | 'logger' | 'stepUp' | 'upstream'> {
  stores: AlertStores;
  /** What webhook URLs the operator allows (ALERT_WEBHOOK_ALLOW_*); unset: public https only. */
  alertWebhookPolicy?: WebhookPolicy;
  /** Rules one person (and the team) keeps (ALERT_RULES_PER_PERSON); unset: the default. */
  alertLimits?: { rulesPerPerson: number; emailsPerHour?: number };
}

/** A foreign key refused: the rule named a webhook target that is not there (any more). */
const isMissingTarget = (error: unknown) => (error as { code?: unknown } | null)?.code === '23503';

const noSuchCard = () =>
  new AppError(
    400,
    'invalid_body',
    "cardId: the card service has no such card; choose one of the company's cards",
  );

const noSuchSubAccount = () =>
  new AppError(
    400,
    'invalid_body',
    "subAccountId: the card service has no such sub account; choose one of the company's sub accounts",
  );

const noSuchTarget = () =>
  new AppError(
    400,
    'invalid_body',
    'channels.webhookTargetId: there is no such webhook target; choose one an admin added',
  );

/** Why a webhook URL is refused, for the person who typed it. */
const urlProblems: Record<string, string> = {
  invalid_url: 'url must be an https: URL',
  insecure_scheme: 'url must use https: (this server does not allow http: webhooks)',
  credentials_in_url:
    'url must carry no user name or password: the signature authenticates Card Console',
  private_address:
    'url points at a private, loopback or otherwise non-public address, which this server does not allow',
  local_name:
    'url names this machine, the local network or a cloud metadata service (localhost, *.local, *.internal, metadata.…), which this server does not allow',
};

/** What a refusal says to the person. */
const refusals: Record<AlertRuleRefusal, string> = {
  team_rules_are_for_admins: 'Only admins set team rules. Save it as your own rule instead.',
  webhooks_are_for_admins:
    'Only admins send alerts to a webhook. Choose the inbox or email instead.',
  not_yours:
    'This rule is not yours to change: people change their own rules, admins also the team’s.',
};

/** A rule as the API shows it: `team` for a rule nobody owns; who wrote it stays in the audit. */
export function ruleView(rule: AlertRule): AlertRuleView {
  const { ownerEmail, createdBy: _c, updatedBy: _u, ...rest } = rule;
  return { ...rest, team: ownerEmail === null };
}

/** A rule in one line, for its audit records. */
function ruleLine(rule: AlertRuleInput | AlertRule): string {
  const parts: string[] = [rule.kind];
  if ('amountCents' in rule) parts.push(`${rule.amountCents} cents`);
  if ('sharePercent' in rule) parts.push(`${rule.sharePercent}%`);
  if (rule.subAccountId !== undefined) parts.push(`sub account ${rule.subAccountId}`);
  if (rule.cardId !== undefined) parts.push(`card ${rule.cardId}`);
  const { inbox, email, webhookTargetId } = rule.channels;
  const channels = [
    ...(inbox ? ['inbox'] : []),
    ...(email ? [rule.digest ? 'email (daily digest)' : 'email'] : []),
    ...(webhookTargetId === null ? [] : [`webhook ${webhookTargetId}`]),
  ];
  parts.push(`to ${channels.join(', ')}${rule.cardOwner ? " and the card's owner" : ''}`);
  parts.push(rule.enabled ? 'on' : 'off');
  const team = 'team' in rule ? rule.team : rule.ownerEmail === null;
  parts.push(team ? 'team' : 'own');
  return parts.join(' · ');
}

const snapshot = (rule: AlertRuleInput | AlertRule) => ({ name: rule.name, rule: ruleLine(rule) });

/**
 * An inbox item as the API shows it to `reader` (a person, signed in): the alert's display payload,
 * flat, by kind; the rule's name only when the rule is theirs or the team's (rule-name-for.ts).
 */
export function inboxItemView(item: InboxItem, reader: string): InboxItemView {
  const p = item.payload;
  const common = {
    id: item.alertId,
    ruleId: item.ruleId,
    ruleName: ruleNameFor(p, reader, true),
    raisedAt: item.raisedAt,
    readAt: item.readAt,
    subAccountId: p.subAccount.id,
    ...(p.subAccount.name === undefined ? {} : { subAccountName: p.subAccount.name }),
    ...(p.card
      ? {
          cardId: p.card.id,
          ...(p.card.name === undefined ? {} : { cardName: p.card.name }),
          ...(p.card.lastFour === undefined ? {} : { last4: p.card.lastFour }),
        }
      : {}),
    ...(p.test ? { test: true } : {}),
  };
  switch (p.kind) {
    case 'utilisation_above':
      return {
        ...common,
        kind: p.kind,
        sharePercent: p.sharePercent,
        limitCents: p.limitCents,
        spentCents: p.spentCents,
        windowStart: p.window.fromDay,
        windowEnd: p.window.toDay,
        timeZone: p.window.timeZone,
      };
    case 'balance_below':
      return {
        ...common,
        kind: p.kind,
        thresholdCents: p.thresholdCents,
        balanceCents: p.balanceCents,
        day: p.day,
      };
    default: {
      const t = p.transaction;
      const transaction = {
        transactionId: t.id,
        transactionAt: t.at,
        amountCents: t.amountCents,
        status: t.status,
        description: t.description,
        ...(t.merchant === undefined ? {} : { merchant: t.merchant }),
        ...(t.merchantName === undefined ? {} : { merchantName: t.merchantName }),
        ...(t.categoryCode === undefined ? {} : { categoryCode: t.categoryCode }),
        ...(t.declineReason === undefined ? {} : { declineReason: t.declineReason }),
      };
      if (p.kind === 'amount_above') {
        return { ...common, ...transaction, kind: p.kind, thresholdCents: p.thresholdCents ?? 0 };
      }
      return { ...common, ...transaction, kind: p.kind };
    }
  }
}

const notFound = () => new AppError(404, 'not_found', 'There is no such alert rule.');
const targetNotFound = () => new AppError(404, 'not_found', 'There is no such webhook target.');

/** Resolves once the person passed a second-factor check recently (or passes one now). */
export type SecondFactorCheck = () => Promise<void>;

/**
 * Alert rules (each person's own and the team's) and each person's inbox. Every rule change,
 * and every refused or failed one, is audited with the rule before → after (a change's record
 * in its own transaction: platform/audit/audited-change.ts); a change names the
 * version it was made on, and a stale one is a 409 with the rule as it is. Only the inbox is
 * delivered by the queue (alert-delivery.ts): email, and the webhook targets admins keep here.
 */
export function createAlertsService(deps: AlertsDeps) {
  const store = () => deps.stores.alerts();
  const rulesPerOwner = deps.alertLimits?.rulesPerPerson ?? DEFAULT_RULES_PER_OWNER;
  const now = () => new Date(deps.clock.now());
  const base = (
    who: Who,
    action: 'alertRule.create' | 'alertRule.update' | 'alertRule.delete' | 'alertRule.test',
  ) =>
    ({
      actor: who.actor.email,
      role: who.actor.role,
      action,
      requestId: who.requestId,
    }) as const;

  /** A refusal of `refused`, audited (denied) with what was asked, then thrown as a 403. */
  async function refuse(
    who: Who,
    action: Parameters<typeof base>[1],
    refused: AlertRuleRefusal,
    record: { target?: string; before?: AlertRule; after?: AlertRuleInput },
  ): Promise<never> {
    await deps.audit.append({
      ...base(who, action),
      ...(record.target === undefined ? {} : { target: record.target }),
      outcome: 'denied',
      ...(record.before ? { before: snapshot(record.before) } : {}),
      ...(record.after ? { after: snapshot(record.after) } : {}),
      detail: refused,
    });
    throw new AppError(403, 'forbidden', refusals[refused]);
  }

  /** The store's refusal of a change as the API's: 404, or 409 with the rule as it is. */
  function translate(error: unknown): unknown {
    if (error instanceof AlertRuleNotFoundError) return notFound();
    if (error instanceof IdenticalAlertRuleError) return limitProblem(error, false);
    if (error instanceof AlertRuleConflictError) {
      return new AppError(
        409,
        'alert_rule_changed',
        'This rule changed since you opened it. Review it as it is now and save again.',
        { extensions: { current: ruleView(error.current) } },
      );
    }
    return error;
  }

  /** A rule's webhook target must exist: 400 otherwise (the foreign key holds under races). */
  async function targetExists(id: string | null | undefined): Promise<void> {
    if (id === null || id === undefined) return;
    if (!(await (await store()).webhookTargets.exists(id))) throw noSuchTarget();
  }

  /**
   * The card and the sub account a rule is limited to must be the company's: a rule naming one
   * the card service does not have would be kept and never raise an alert (400 instead). Asked
   * of the card service (the card's read, the sub-account list) when a rule is made, and when a
   * change names another one: a rule kept as it was is not refused for what it named before. A
   * card service that cannot answer is its usual 502/503/504, never taken for "no such".
   */
  async function scopeExists(
    who: Who,
    input: Pick<AlertRuleInput, 'cardId' | 'subAccountId'>,
    before?: Pick<AlertRule, 'cardId' | 'subAccountId'>,
  ): Promise<void> {
    const ctx = { requestId: who.requestId, trace: who.trace, role: who.actor.role };
    const { cardId, subAccountId } = input;
    if (cardId !== undefined && cardId !== before?.cardId) {
      await deps.upstream.getCard(ctx, cardId, { fresh: true }).catch((error: unknown) => {
        throw error instanceof AppError && error.status === 404 ? noSuchCard() : error;
      });
    }
    if (subAccountId !== undefined && subAccountId !== before?.subAccountId) {
      if (!(await subAccountExists(deps.upstream, ctx, subAccountId))) throw noSuchSubAccount();
    }
  }

  /**
   * A target in its records: its name and where it sends (the URL's origin, the scheme, host and
   * port: a path may hold the receiver's own secret), so the trail says where the program's data
   * went, or was to go, long after the target is gone.
   */
  const targetSnapshot = (target: { name: string; url: string }) => {
    const destination = originOf(target.url);
    return destination ? { name: target.name, destination } : { name: target.name };
  };

  const targetAudit = (who: Who, action: 'webhookTarget.create' | 'webhookTarget.delete') =>
    ({
      actor: who.actor.email,
      role: who.actor.role,
      action,
      requestId: who.requestId,
    }) as const;

  /**
   * A recent second factor before a webhook target changes, as every People change needs: a
   * target sends the program's data out of the product. A refusal is audited as denied.
   */
  async function secondFactor(
    who: Who,
    action: 'webhookTarget.create' | 'webhookTarget.delete',
    check: SecondFactorCheck,
    record: { target?: string; after?: { name: string; destination?: string } },
  ): Promise<void> {
    try {
      await check();
    } catch (error) {
      if (error instanceof AppError) {
        await deps.audit.append({
          ...targetAudit(who, action),
          ...record,
          outcome: 'denied',
          detail: error.code,
        });
      }
      throw error;
    }
  }

  return {
    /** The second-factor check the webhook target endpoints hand to the service. */
    stepUp: deps.stepUp,

    async webhookTargets(): Promise<WebhookTargetView[]> {
      return (await store()).webhookTargets.list();
    },

    /** Saves a target whose URL the policy allows; the secret is in this answer only. */
    async createWebhookTarget(
      who: Who,
      input: WebhookTargetInput,
      recentSecondFactor: SecondFactorCheck,
    ): Promise<WebhookTargetCreated> {
      try {
        // The secret is made by the store; a placeholder of the right length checks the URL.
        webhookTarget({ url: input.url, secret: 'x'.repeat(32) }, deps.alertWebhookPolicy ?? {});
      } catch (error) {
        if (!(error instanceof WebhookTargetError)) throw error;
        await deps.audit.append({
          ...targetAudit(who, 'webhookTarget.create'),
          outcome: 'failed',
          after: targetSnapshot(input),
          detail: error.reason,
        });
        throw new AppError(400, 'invalid_body', urlProblems[error.reason] ?? error.message);
      }
      await secondFactor(who, 'webhookTarget.create', recentSecondFactor, {
        after: targetSnapshot(input),
      });
      const targets = (await store()).webhookTargets;
      return auditedChange(
        deps,
        (audited) =>
          targets.create(
            { name: input.name, url: new URL(input.url).href },
            who.actor.email,
            now(),
            audited,
          ),
        (created) => [
          {
            ...targetAudit(who, 'webhookTarget.create'),
            target: created.id,
            outcome: 'success',
            after: targetSnapshot(created),
          },
        ],
      ).catch(async (error: unknown) => {
        if (!(error instanceof WebhookTargetExistsError)) throw error;
        await deps.audit.append({
          ...targetAudit(who, 'webhookTarget.create'),
          outcome: 'denied',
          after: targetSnapshot(input),
          detail: 'webhook_target_exists',
        });
        throw new AppError(
          409,
          'webhook_target_exists',
          `A webhook target named “${error.existing}” exists: give this one another name, or use that one.`,
        );
      });
    },

    /** Removes a target no rule sends to. */
    async deleteWebhookTarget(
      who: Who,
      id: string,
      recentSecondFactor: SecondFactorCheck,
    ): Promise<undefined> {
      const targets = (await store()).webhookTargets;
      const using = await targets.rulesUsing(id);
      const refuseInUse = async (names: string[]) => {
        await deps.audit.append({
          ...targetAudit(who, 'webhookTarget.delete'),
          target: id,
          outcome: 'failed',
          detail: 'in_use',
        });
        throw new AppError(
          400,
          'invalid_request',
          `Rules send to this webhook (${names.slice(0, 5).join(', ')}): choose another channel for them first.`,
        );
      };
      if (using.length > 0) return refuseInUse(using);
      if (!(await targets.exists(id))) throw targetNotFound();
      await secondFactor(who, 'webhookTarget.delete', recentSecondFactor, { target: id });
      const removed = await auditedChange(
        deps,
        (audited) => targets.delete(id, audited),
        (target) =>
          target
            ? [
                {
                  ...targetAudit(who, 'webhookTarget.delete'),
                  target: id,
                  outcome: 'success',
                  before: targetSnapshot(target),
                },
              ]
            : [],
      ).catch(async (error: unknown) => {
        if (isMissingTarget(error)) return refuseInUse(await targets.rulesUsing(id));
        throw error;
      });
      if (!removed) throw targetNotFound();
      return undefined;
    },

    async rules(who: Who): Promise<AlertRuleView[]> {
      return (await store()).rulesFor(who.actor.email).then((rules) => rules.map(ruleView));
    },

    async createRule(who: Who, input: AlertRuleInput): Promise<AlertRuleView> {
      const refused = maySaveRule(who.actor, input);
      if (refused) return refuse(who, 'alertRule.create', refused, { after: input });
      const s = await store();
      await targetExists(input.channels.webhookTargetId);
      await scopeExists(who, input);
      const rule = await auditedChange(
        deps,
        (audited) => s.createRule(input, who.actor.email, now(), audited, rulesPerOwner),
        (created) => [
          {
            ...base(who, 'alertRule.create'),
            target: created.id,
            outcome: 'success',
            after: snapshot(created),
          },
        ],
      ).catch(async (error: unknown) => {
        if (isMissingTarget(error)) {
          // Removed by another admin since it was checked: refused, and recorded as the update's
          // refusal is (a review on two replicas found these unrecorded).
          await deps.audit.append({
            ...base(who, 'alertRule.create'),
            outcome: 'failed',
            after: snapshot(input),
            detail: 'invalid_body',
          });
          throw noSuchTarget();
        }
        const problem = limitProblem(error, input.team);
        if (!problem) throw error;
        await deps.audit.append({
          ...base(who, 'alertRule.create'),
          outcome: 'denied',
          after: snapshot(input),
          detail: problem.code,
        });
        throw problem;
      });
      return ruleView(rule);
    },

    async updateRule(
      who: Who,
      id: string,
      body: AlertRuleInput & { version: number },
    ): Promise<AlertRuleView> {
      const { version, ...input } = body;
      const s = await store();
      const existing = await s.rule(id);
      if (!existing) throw notFound();
      const refused = maySaveRule(who.actor, input, existing);
      if (refused) {
        return refuse(who, 'alertRule.update', refused, {
          target: id,
          before: existing,
          after: input,
        });
      }
      await targetExists(input.channels.webhookTargetId);
      await scopeExists(who, input, existing);
      try {
        const updated = await auditedChange(
          deps,
          (audited) => s.updateRule(id, version, input, who.actor.email, now(), audited),
          (rule) => [
            {
              ...base(who, 'alertRule.update'),
              target: id,
              outcome: 'success',
              before: snapshot(existing),
              after: snapshot(rule),
            },
          ],
        ).catch((error: unknown) => {
          throw isMissingTarget(error) ? noSuchTarget() : error;
        });
        return ruleView(updated);
      } catch (caught) {
        if (caught instanceof AuditUnavailableError) throw caught;
        const error = translate(caught);
        const current = caught instanceof AlertRuleConflictError ? caught.current : existing;
        await deps.audit.append({
          ...base(who, 'alertRule.update'),
          target: id,
          outcome: 'failed',
          before: snapshot(current),
          after: snapshot(input),
          detail: problemCode(error),
        });
        throw error;
      }
    },

    async deleteRule(who: Who, id: string, version: number): Promise<undefined> {
      const s = await store();
      const existing = await s.rule(id);
      if (!existing) throw notFound();
      const refused = mayChangeRule(who.actor, existing);
      if (refused)
        return refuse(who, 'alertRule.delete', refused, { target: id, before: existing });
      try {
        await auditedChange(
          deps,
          (audited) => s.deleteRule(id, version, audited),
          () => [
            {
              ...base(who, 'alertRule.delete'),
              target: id,
              outcome: 'success',
              before: snapshot(existing),
            },
          ],
        );
      } catch (caught) {
        if (caught instanceof AuditUnavailableError) throw caught;
        const error = translate(caught);
        await deps.audit.append({
          ...base(who, 'alertRule.delete'),
          target: id,
          outcome: 'failed',
          before: snapshot(caught instanceof AlertRuleConflictError ? caught.current : existing),
          detail: problemCode(error),
        });
        throw error;
      }
      return undefined;
    },

    /**
     * Sends a test of a rule the caller may change (their own; an admin, the team's too) through
     * its channels, to the caller alone, and answers where it went. Audited with the rule and
     * where it went: a webhook post leaves the product, though what it carries is an example.
     */
    async testRule(who: Who, id: string): Promise<AlertTestResult> {
      const s = await store();
      const existing = await s.rule(id);
      if (!existing) throw notFound();
      const refused = mayChangeRule(who.actor, existing);
      if (refused) {
        return refuse(who, 'alertRule.test', refused, { target: id, before: existing });
      }
      const { webhookTargetId } = existing.channels;
      const target =
        webhookTargetId === null
          ? undefined
          : (await s.webhookTargets.list()).find((t) => t.id === webhookTargetId);
      const sent = (alert: RaisedAlert): AlertTestResult => ({
        alertId: alert.id,
        inbox: alert.inboxRecipients.length > 0,
        email: alert.channels.email ? who.actor.email.toLowerCase() : null,
        webhook: alert.channels.webhookTargetId === null ? null : (target?.name ?? 'webhook'),
      });
      const alert = await auditedChange(
        deps,
        (audited) =>
          s.raiseTest(id, {
            at: now(),
            recipient: who.actor.email,
            ...(deps.alertLimits?.emailsPerHour === undefined
              ? {}
              : { emailsPerHour: deps.alertLimits.emailsPerHour }),
            audited,
          }),
        (raised) => {
          if (!raised) return [];
          const where = sent(raised);
          const to = [
            ...(where.inbox ? ['inbox'] : []),
            ...(where.email ? [`email ${where.email}`] : []),
            ...(where.webhook ? [`webhook ${where.webhook}`] : []),
          ];
          return [
            {
              ...base(who, 'alertRule.test'),
              target: id,
              outcome: 'success',
              after: { name: existing.name, rule: `test to ${to.join(', ') || 'nowhere'}` },
            },
          ];
        },
      );
      if (!alert) throw notFound();
      return sent(alert);
    },

    async inbox(
      who: Who,
      query: { unread?: '0' | '1'; cursor?: string; limit?: number },
    ): Promise<InboxPage> {
      try {
        const page = await (await store()).inbox(who.actor.email, {
          unreadOnly: query.unread === '1',
          ...(query.limit === undefined ? {} : { limit: query.limit }),
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
        });
        return {
          items: page.items.map((item) => inboxItemView(item, who.actor.email)),
          ...(page.next === undefined ? {} : { next: page.next }),
        };
      } catch (error) {
        if (error instanceof BadInboxCursorError) {
          throw new AppError(
            400,
            'invalid_query',
            'cursor: not a position in your inbox; start again from the first page',
          );
        }
        throw error;
      }
    },

    async unreadCount(who: Who): Promise<{ unread: number }> {
      return { unread: await (await store()).unreadCount(who.actor.email) };
    },

    /** Marks alerts read in the caller's own inbox only: another's alert ids change nothing. */
    async markRead(who: Who, body: MarkRead): Promise<MarkReadResult> {
      const s = await store();
      const marked = await s.markRead(who.actor.email, 'all' in body ? 'all' : body.ids, now());
      return { marked, unread: await s.unreadCount(who.actor.email) };
    },
  };
}

/** A URL's origin, digit runs that could read as a card number masked; undefined if no URL. */
function originOf(url: string): string | undefined {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : withCardNumbersMasked(origin);
  } catch {
    return undefined;
  }
}
