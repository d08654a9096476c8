// Sends what the outbox holds: each email and webhook post of a raised alert, and each rule's
// daily digest. Once per delivery key, whatever the number of replicas and restarts:
// - the key is the outbox's primary key, written in the transaction that raised the alert (a
//   raise that inserted nothing wrote no delivery), and a digest's key names its rule and day;
// - one worker per process, on both engines, takes due rows with a lease (on PostgreSQL
//   `FOR UPDATE SKIP LOCKED`, so replicas polling one outbox never take the same row at once),
//   sends each and settles it right after; a row settled is never taken again;
// - the outbox is durable: a restart, or another replica once a dead worker's lease lapses,
//   resumes what was pending (at least once, as a queue would).
// The one gap no queue closes: a process that dies after the receiver took the message and
// before the row is settled sends it again once the lease lapses. Receivers drop such a repeat
// by its delivery id (`Card-Console-Delivery`, the email's Message-ID).
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import { type QueueWorker, queueWorker } from '../../platform/jobs/job-worker';
import type { AlertDeliveryOutcome, Metrics } from '../../platform/metrics/metrics';
import type { AlertMessage } from '../../platform/notify/alert-message';
import { deliveryIdSchema } from '../../platform/notify/delivery-id';
import type { EmailSender } from '../../platform/notify/email-sender';
import type { WebhookSender } from '../../platform/notify/webhook-sender';
import { type WebhookPolicy, webhookTarget } from '../../platform/notify/webhook-target';
import type { AlertPayload } from './alert-evaluator';
import type { AlertStore } from './alert-store';
import type { DeliveryOutbox, OutboxDelivery } from './delivery-outbox';
import { digestKey, type PlannedDelivery } from './delivery-plan';
import {
  foldedDigestDay,
  foldedDigestEmail,
  foldedDigestKey,
  ruleDigestEmail,
} from './digest-email';
import { ruleNameFor } from './rule-name-for';

export interface DeliverySettings {
  maxAttempts: number;
  retryBaseMs: number;
  pollMs: number;
}

export interface AlertDeliveryDeps {
  alerts: () => Promise<AlertStore>;
  /** Null: no SMTP configured; email deliveries fail at once (logged). */
  email: EmailSender | null;
  webhooks: WebhookSender;
  webhookPolicy: WebhookPolicy;
  /**
   * Who may be alerted (the people directory's enabled, signed-up people; kept a function: the
   * directory changes): a team rule's digest goes to them, and an email or digest to anyone else
   * but a card's owner outside People is not sent.
   */
  teamRecipients: () => readonly string[] | Promise<readonly string[]>;
  clock: Clock;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  settings: DeliverySettings;
  /** Each try's outcome by channel; none in tests that do not look. */
  metrics?: Pick<Metrics, 'alertDelivery'> | undefined;
}

/** An email or digest to a person disabled or removed since it was written: never sent. */
export const NOT_ALERTABLE = 'the recipient may no longer be alerted (disabled or removed)';

/** Email asked for on a server without SMTP (demo mode's default): said, not an error. */
export const EMAIL_OFF = 'alert email is not configured';

/** Why a delivery failed, and whether a later try may succeed. */
class DeliveryFailure extends Error {
  constructor(
    readonly reason: string,
    readonly retryable: boolean,
  ) {
    super(reason);
  }
}

function failureOf(error: unknown): DeliveryFailure {
  if (error instanceof DeliveryFailure) return error;
  const e = error as { reason?: unknown; retryable?: unknown; name?: unknown };
  if (typeof e?.reason === 'string' && typeof e.retryable === 'boolean') {
    return new DeliveryFailure(`${String(e.name ?? 'Error')}: ${e.reason}`, e.retryable);
  }
  // Our own mistakes (a malformed alert) do not mend with time.
  return new DeliveryFailure(error instanceof Error ? error.name : 'unknown', false);
}

/**
 * The id receivers drop repeats by: the alert's key when it fits a header, else its digest. The
 * digest is hex, and about one hex digest in 120 holds a run of decimal digits that reads as a
 * card number (which no id may hold): that one is written in the letters a-p instead, so every
 * key has an id, and the ids of keys that never needed it stay what they were.
 */
export function deliveryIdOf(key: string): string {
  if (deliveryIdSchema.safeParse(key).success) return key;
  const hex = createHash('sha256').update(key).digest('hex').slice(0, 40);
  const id = `k.${hex}`;
  if (deliveryIdSchema.safeParse(id).success) return id;
  return `k.${hex.replace(/[0-9a-f]/g, (nibble) => String.fromCharCode(97 + Number.parseInt(nibble, 16)))}`;
}

/**
 * What the senders render of an alert, a test marked as one. Undefined only for a utilisation
 * alert that names no card (the evaluator always names one).
 */
export function alertMessageOf(payload: AlertPayload): AlertMessage | undefined {
  const message = messageOfKind(payload);
  // A test's link is to the alert rules: what it names does not exist.
  return message && payload.test ? { ...message, test: true, linkPath: '/alerts' } : message;
}

function messageOfKind(payload: AlertPayload): AlertMessage | undefined {
  const ruleName = payload.ruleName.slice(0, 500);
  const subAccount = {
    id: payload.subAccount.id.slice(0, 200),
    name: (payload.subAccount.name ?? payload.subAccount.id).slice(0, 500),
  };
  const card = payload.card;
  const lastFour =
    card?.lastFour !== undefined && /^\d{4}$/.test(card.lastFour) ? card.lastFour : undefined;
  const usd = (cents: number) => ({ cents, currency: 'USD' });
  switch (payload.kind) {
    case 'utilisation_above':
      if (card === undefined) return undefined;
      return {
        ruleName,
        kind: 'card_utilisation',
        subAccount,
        card: {
          id: card.id.slice(0, 200),
          name: (card.name ?? 'Card').slice(0, 500),
          ...(lastFour === undefined ? {} : { lastFour }),
        },
        sharePercent: payload.sharePercent,
        limit: usd(payload.limitCents),
        spent: usd(payload.spentCents),
        window: {
          fromDay: payload.window.fromDay,
          toDay: payload.window.toDay,
          timeZone: payload.window.timeZone.slice(0, 500),
        },
        linkPath: `/cards/${encodeURIComponent(card.id)}`,
      };
    case 'balance_below':
      return {
        ruleName,
        kind: 'balance_below',
        subAccount,
        threshold: usd(payload.thresholdCents),
        balance: usd(payload.balanceCents),
        day: payload.day,
        linkPath: `/transactions?subAccountId=${encodeURIComponent(payload.subAccount.id)}`,
      };
    default: {
      const t = payload.transaction;
      return {
        ruleName,
        kind:
          payload.kind === 'declined'
            ? 'transaction_declined'
            : payload.kind === 'amount_above'
              ? 'transaction_over_amount'
              : 'transaction_new_category',
        transactionId: t.id.slice(0, 200),
        subAccount,
        ...(lastFour === undefined
          ? {}
          : { card: { name: (card?.name ?? 'Card').slice(0, 500), lastFour } }),
        merchant: (t.merchant ?? t.description).slice(0, 500),
        ...(t.merchantName === undefined ? {} : { merchantName: t.merchantName.slice(0, 500) }),
        description: t.description.slice(0, 500),
        amount: usd(Math.abs(t.amountCents)),
        status: t.status.slice(0, 50),
        ...(t.declineReason === undefined ? {} : { declineReason: t.declineReason.slice(0, 500) }),
        occurredAt: new Date(t.at).toISOString(),
        linkPath: `/transactions/${encodeURIComponent(t.id)}`,
      };
    }
  }
}

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * What every worker shares: sending one delivery, settling it, and writing the day's digests.
 */
export function createDeliveryCore(deps: AlertDeliveryDeps) {
  /**
   * Whether an email or digest may still go to its recipient: a person who may be alerted now
   * (disabled or removed since the alert was raised: not), or a card's owner who is not a person
   * in People (an address, which the people directory does not judge).
   */
  async function stillAlertable(delivery: OutboxDelivery): Promise<boolean> {
    if (await isPerson(delivery.recipient)) return true;
    // A rule's digest goes to its owner or the team: people only.
    if (delivery.channel === 'digest' && !foldedDigestDay(delivery.key)) return false;
    const cardId = delivery.payload?.card?.id;
    return (await deps.alerts()).cardOwnerOutsidePeople(delivery.recipient.toLowerCase(), cardId);
  }

  /** Whether `recipient` is one of the people who may be alerted now (the team's audience). */
  async function isPerson(recipient: string): Promise<boolean> {
    const wanted = recipient.toLowerCase();
    return (await deps.teamRecipients()).some((person) => person.toLowerCase() === wanted);
  }

  /** The payloads as `recipient` reads them: each rule's name only if the rule is theirs. */
  async function readBy<T extends { payload: AlertPayload }>(
    recipient: string,
    alerts: readonly T[],
  ): Promise<T[]> {
    const inTeam = await isPerson(recipient);
    return alerts.map((a) => ({
      ...a,
      payload: { ...a.payload, ruleName: ruleNameFor(a.payload, recipient, inTeam) },
    }));
  }

  async function send(delivery: OutboxDelivery, outbox: DeliveryOutbox): Promise<void> {
    if (delivery.channel !== 'webhook' && !(await stillAlertable(delivery))) {
      throw new DeliveryFailure(NOT_ALERTABLE, false);
    }
    if (delivery.channel === 'digest') return sendDigest(delivery, outbox);
    if (!delivery.payload || !delivery.alertKey)
      throw new DeliveryFailure('the alert cannot be written for email or webhook', false);
    const id = deliveryIdOf(delivery.alertKey);
    if (delivery.channel === 'email') {
      // An email names the rule only to whom the rule is (a card's owner is told who set it).
      const [read] = await readBy(delivery.recipient, [{ payload: delivery.payload }]);
      const message = read && alertMessageOf(read.payload);
      if (!message)
        throw new DeliveryFailure('the alert cannot be written for email or webhook', false);
      if (!deps.email) throw new DeliveryFailure(EMAIL_OFF, false);
      await deps.email.send({ id, to: [delivery.recipient], alert: message });
      return;
    }
    // A webhook's target is an admin's, chosen for the rule by an admin: it gets the rule as is.
    const message = alertMessageOf(delivery.payload);
    if (!message)
      throw new DeliveryFailure('the alert cannot be written for email or webhook', false);
    const store = await deps.alerts();
    const target = await store.webhookTargets.withSecret(delivery.recipient);
    if (!target) throw new DeliveryFailure('the webhook target was removed', false);
    let checked: ReturnType<typeof webhookTarget>;
    try {
      checked = webhookTarget({ url: target.url, secret: target.secret }, deps.webhookPolicy);
    } catch (error) {
      throw new DeliveryFailure(
        `the webhook target is not allowed: ${(error as { reason?: string }).reason ?? 'invalid'}`,
        false,
      );
    }
    await deps.webhooks.send(checked, { id, alert: message, createdAt: delivery.createdAt });
  }

  async function sendDigest(delivery: OutboxDelivery, outbox: DeliveryOutbox): Promise<void> {
    if (!deps.email) throw new DeliveryFailure(EMAIL_OFF, false);
    const folded = foldedDigestDay(delivery.key);
    if (folded) {
      const from = new Date(`${folded}T00:00:00.000Z`);
      const to = new Date(from.getTime() + DAY_MS);
      const alerts = await readBy(
        delivery.recipient,
        await outbox.foldedAlerts(delivery.recipient, from, to),
      );
      await deps.email.sendRendered({
        id: deliveryIdOf(delivery.key),
        to: [delivery.recipient],
        ...foldedDigestEmail(folded, alerts),
      });
      return;
    }
    // `digest:<rule>:<day>|digest|<recipient>`
    const match = /^digest:(.+):(\d{4}-\d{2}-\d{2})\|/.exec(delivery.key);
    if (!match || !delivery.ruleId) throw new DeliveryFailure('not a digest key', false);
    const day = match[2] as string;
    const from = new Date(`${day}T00:00:00.000Z`);
    // Its recipients are the rule's owner or the team; read by them all the same.
    const alerts = await readBy(
      delivery.recipient,
      await outbox.alertsOf(delivery.ruleId, from, new Date(from.getTime() + DAY_MS)),
    );
    await deps.email.sendRendered({
      id: deliveryIdOf(`digest:${delivery.ruleId}:${day}`),
      to: [delivery.recipient],
      ...ruleDigestEmail(day, alerts),
    });
  }

  /** The wait after the `attempt`-th failed try: the base, doubled each time, at most an hour. */
  const backoffMs = (attempt: number) =>
    Math.min(3_600_000, deps.settings.retryBaseMs * 2 ** (attempt - 1));

  /** What is logged of a delivery: never a URL (it may hold a token) nor a secret. */
  const described = (d: OutboxDelivery) => ({
    channel: d.channel,
    ruleId: d.ruleId,
    alertId: d.alertId,
    ...(d.channel === 'webhook' ? { webhookTargetId: d.recipient } : {}),
  });

  /** Counts a try of `delivery` that ended as `outcome`. */
  const counted = (delivery: OutboxDelivery, outcome: AlertDeliveryOutcome) =>
    deps.metrics?.alertDelivery(delivery.channel, outcome);

  return {
    send,
    backoffMs,
    described,
    failureOf,
    counted,
    /**
     * Writes the digests of the UTC day before `now` (once a day is over): one per rule and
     * recipient that had alerts, keyed by rule, day and recipient, and one per recipient whose
     * emails were folded, keyed by day and recipient, so replicas write each once.
     */
    async writeDigests(outbox: DeliveryOutbox): Promise<string[]> {
      const now = deps.clock.now();
      const day = utcDay(now - DAY_MS);
      const from = new Date(`${day}T00:00:00.000Z`);
      const to = new Date(from.getTime() + DAY_MS);
      const planned: PlannedDelivery[] = [];
      let team: readonly string[] | undefined;
      for (const rule of await outbox.digestRules()) {
        if ((await outbox.alertsOf(rule.id, from, to)).length === 0) continue;
        team ??= await deps.teamRecipients();
        const people = new Set(team.map((e) => e.toLowerCase()));
        // A personal rule's digest only while its owner may be alerted (not disabled, removed).
        const recipients =
          rule.ownerEmail === null
            ? [...people]
            : people.has(rule.ownerEmail.toLowerCase())
              ? [rule.ownerEmail]
              : [];
        for (const recipient of recipients) {
          planned.push({
            key: digestKey(rule.id, day, recipient),
            alertId: null,
            ruleId: rule.id,
            channel: 'digest',
            recipient,
          });
        }
      }
      // And each recipient's emails their hourly cap folded that day (email-cap.ts).
      for (const recipient of await outbox.foldedRecipients(from, to)) {
        planned.push({
          key: foldedDigestKey(day, recipient),
          alertId: null,
          ruleId: null,
          channel: 'digest',
          recipient,
        });
      }
      return outbox.add(planned, new Date(now));
    },
  };
}

/** Starts polling; stops once the send under way is settled and the rest handed back. */
export type AlertDeliveryWorker = Pick<QueueWorker, 'start' | 'stop'>;

/** How long a try may hold a delivery before another worker may take it (a worker that died). */
const LEASE_MS = 10 * 60_000;

/** Deliveries taken by one claim: one statement a batch, and a lease short work fits in. */
const BATCH = 10;

/** How often the digests of the day before are looked for (writing them twice is a no-op). */
const DIGEST_EVERY_MS = 15 * 60_000;

/** Why a delivery whose last try never ended is given up. */
const LAPSED = 'the last try did not finish (its worker stopped)';

/**
 * The delivery worker, the same on both engines: each process runs one, and every poll it takes
 * the outbox's due deliveries a batch at a time (delivery-outbox.ts `claimDue`: on PostgreSQL the
 * replicas skip each other's rows), tries each once, and settles or postpones it. A try whose
 * worker died is tried again by any replica once its lease lapses; a worker that stops hands
 * back what it took and had not tried.
 */
export function outboxDeliveryWorker(
  deps: AlertDeliveryDeps & {
    /** False while the engine is closed: the pass waits for the index's first use. */
    indexOpen?: () => boolean;
    /** How long a taken delivery is held (tests shorten it); ten minutes by default. */
    leaseMs?: number;
  },
): QueueWorker {
  const core = createDeliveryCore(deps);
  const leaseMs = deps.leaseMs ?? LEASE_MS;
  let lastDigests = Number.NEGATIVE_INFINITY;

  async function tryOne(delivery: OutboxDelivery, outbox: DeliveryOutbox): Promise<void> {
    const attempt = delivery.attempts;
    const { maxAttempts } = deps.settings;
    if (attempt > maxAttempts) {
      deps.logger.error(
        { ...core.described(delivery), attempt: maxAttempts, reason: LAPSED },
        'alert delivery failed for good',
      );
      await outbox.settle(delivery.key, attempt, 'failed', new Date(deps.clock.now()), LAPSED);
      core.counted(delivery, 'given_up');
      return;
    }
    try {
      await core.send(delivery, outbox);
      await outbox.settle(delivery.key, attempt, 'sent', new Date(deps.clock.now()));
      core.counted(delivery, 'sent');
    } catch (error) {
      const failure = core.failureOf(error);
      const log = { ...core.described(delivery), attempt, reason: failure.reason };
      if (failure.retryable && attempt < maxAttempts) {
        const wait = core.backoffMs(attempt);
        deps.logger.warn({ ...log, retryInMs: wait }, 'alert delivery failed; trying again later');
        await outbox.postpone(delivery.key, attempt, wait, failure.reason);
        core.counted(delivery, 'retrying');
      } else {
        if (failure.reason === EMAIL_OFF) deps.logger.info(log, 'alert email not sent: no SMTP');
        else deps.logger.error(log, 'alert delivery failed for good');
        await outbox.settle(
          delivery.key,
          attempt,
          'failed',
          new Date(deps.clock.now()),
          failure.reason,
        );
        core.counted(delivery, failure.reason === EMAIL_OFF ? 'not_configured' : 'given_up');
      }
    }
  }

  const outbox = async () => (await deps.alerts()).deliveries;
  // The outbox is one queue of the background work's worker (platform/jobs/job-worker.ts).
  return queueWorker<OutboxDelivery>(
    {
      name: 'alert delivery',
      batch: BATCH,
      leaseMs,
      async beforePass() {
        const now = deps.clock.now();
        if (now - lastDigests < DIGEST_EVERY_MS) return;
        lastDigests = now;
        await core.writeDigests(await outbox());
      },
      claim: async (limit) => (await outbox()).claimDue(limit, leaseMs),
      run: async (delivery) => tryOne(delivery, await outbox()),
      release: async (delivery) => (await outbox()).release(delivery.key, delivery.attempts),
    },
    {
      pollMs: deps.settings.pollMs,
      logger: deps.logger,
      ...(deps.indexOpen ? { ready: deps.indexOpen } : {}),
    },
  );
}
