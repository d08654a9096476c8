// Alert rules, the alerts they raised and each person's inbox, in the transaction index's SQL
// store (PostgreSQL or the embedded engine; migration `alerts`). A rule's change names the
// version it was made on and is refused when the rule moved on. An alert is raised once per
// idempotency key, whatever the number of replicas raising it at once: the key's unique index
// decides (`ON CONFLICT DO NOTHING`), and only the raise that inserted it gets it back, with the
// inbox rows written in the same transaction.
import { randomBytes } from 'node:crypto';
import {
  type Audited,
  committed,
  type SqlEngine,
  type SqlQueryable,
} from '../../platform/sql/sql-engine';
import { storable } from '../../platform/sql/storable';
import { type AlertPayload, type AlertToRaise, maskedDeep } from './alert-evaluator';
import {
  DEFAULT_RULES_PER_OWNER,
  holdRoomForRule,
  IDENTITY_MATCH,
  IdenticalAlertRuleError,
  identityValues,
  isIdenticalRule,
} from './alert-rule-limits';
import { INPUT_COLUMNS, inputValues, RULE_COLUMNS, type RuleRow, ruleOf } from './alert-rule-rows';
import { type AlertRule, type AlertRuleInput, alertRuleInputSchema } from './alert-rules';
import { testAlertKey, testAlertPayload } from './alert-test';
import { DeliveryOutbox } from './delivery-outbox';
import { deliveriesOf } from './delivery-plan';
import { capEmails, DEFAULT_EMAILS_PER_HOUR } from './email-cap';
import { withRuleOwner } from './rule-name-for';
import { WebhookTargetStore } from './webhook-targets';

export class AlertRuleNotFoundError extends Error {
  override name = 'AlertRuleNotFoundError';
  constructor() {
    super('no such alert rule');
  }
}

/** The rule changed since the version the change was made on; `current` is how it is now. */
export class AlertRuleConflictError extends Error {
  override name = 'AlertRuleConflictError';
  constructor(readonly current: AlertRule) {
    super('alert rule changed meanwhile');
  }
}

/** An inbox position this store did not issue. */
export class BadInboxCursorError extends Error {
  override name = 'BadInboxCursorError';
}

/** An alert this raise inserted: the caller enqueues its deliveries, and only these. */
export interface RaisedAlert {
  id: string;
  ruleId: string;
  idempotencyKey: string;
  raisedAt: string;
  payload: AlertPayload;
  /** The rule's owner (null: a team rule) and channels, as they were when it was raised. */
  ownerEmail: string | null;
  /** False when the owner may not be alerted (disabled or removed): nothing goes to them. */
  ownerAlerted?: boolean;
  channels: AlertRule['channels'];
  digest: boolean;
  /**
   * The email of the owner of the alert's card, when its rule goes to the card's owner too
   * (`cardOwner`) and the card has an owner with an email (`card_owner`, as it was when raised).
   */
  cardOwnerEmail?: string | null;
  /** Whose inbox it was put in. */
  inboxRecipients: string[];
}

export interface InboxItem {
  alertId: string;
  /** Null once the rule was deleted. */
  ruleId: string | null;
  raisedAt: string;
  readAt: string | null;
  payload: AlertPayload;
}

export const MAX_INBOX_PAGE = 100;

/** 128 random bits in base64url (no run of digits a card-number check would trip on). */
const newId = () => randomBytes(16).toString('base64url');
const iso = (value: Date | string) => new Date(value).toISOString();
const email = (value: string) => value.trim().toLowerCase();

const encodeCursor = (raisedAt: string, alertId: string) =>
  Buffer.from(JSON.stringify([raisedAt, alertId])).toString('base64url');

/** An instant as `encodeCursor` writes it (toISOString), and only a real one (no 30 February). */
const isIsoInstant = (text: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(text) &&
  new Date(text).toISOString() === text;

/** An alert id as `newId` makes them: what the database is asked to compare, nothing else. */
const isAlertId = (text: string) => /^[A-Za-z0-9_-]{1,64}$/.test(text);

/**
 * The position a cursor names. Anything this store did not write (not base64url, not JSON, other
 * types, a date the database would refuse, a NUL in the id) is a BadInboxCursorError, never a
 * query that fails in the engine.
 */
function decodeCursor(cursor: string): [string, string] {
  const bytes = Buffer.from(cursor, 'base64url');
  let value: unknown;
  try {
    if (bytes.toString('base64url') !== cursor) throw new Error('not base64url');
    value = JSON.parse(bytes.toString());
  } catch {
    throw new BadInboxCursorError('not an inbox cursor');
  }
  if (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'string' &&
    isIsoInstant(value[0]) &&
    isAlertId(value[1])
  ) {
    return [value[0], value[1]];
  }
  throw new BadInboxCursorError('not an inbox cursor');
}

interface RaiseRuleRow {
  id: string;
  owner_email: string | null;
  channel_inbox: boolean;
  channel_email: boolean;
  webhook_target_id: string | null;
  digest: boolean;
  to_card_owner: boolean;
}

/**
 * The owners of `cardIds` that have an email, in `tx` (`card_owner`, the cards feature's table in
 * the same database), and whether that email is a person's in People (who has an inbox).
 */
async function cardOwnersOf(
  tx: SqlQueryable,
  cardIds: readonly string[],
): Promise<Map<string, { email: string; person: boolean }>> {
  if (cardIds.length === 0) return new Map();
  const rows = await tx.query<{ card_id: string; owner_email: string; person: boolean }>(
    `SELECT co.card_id, co.owner_email,
            EXISTS (SELECT 1 FROM person p WHERE p.email = co.owner_email) AS person
       FROM card_owner co WHERE co.card_id = ANY($1::text[]) AND co.owner_email IS NOT NULL`,
    [[...new Set(cardIds.map(storable))]],
  );
  // By the stored id (`storable`): a card service's id may hold what the engines cannot store.
  return new Map(rows.map((r) => [r.card_id, { email: r.owner_email, person: r.person }]));
}

/** How a user of the alerts reaches their store: made over the database by the composition root. */
export interface AlertStores {
  alerts(): Promise<AlertStore>;
}

/**
 * What of the alerts was `email`'s alone, dropped in the transaction `tx` that removes them from
 * People (src/stores.ts): their own rules, their copies of alerts, and the alert emails still
 * waiting to go to them (marked failed, so no worker sends them). Team rules stay. What it
 * dropped, in words, for the removal's audit record.
 */
export async function dropAlertsOf(tx: SqlQueryable, email: string): Promise<string[]> {
  const [rules] = await tx.query<{ n: number }>(
    `WITH gone AS (DELETE FROM alert_rule WHERE owner_email = $1 RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [email],
  );
  const [copies] = await tx.query<{ n: number }>(
    `WITH gone AS (DELETE FROM alert_inbox WHERE recipient_email = $1 RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [email],
  );
  const [emails] = await tx.query<{ n: number }>(
    `WITH stopped AS (
       UPDATE alert_delivery
          SET state = 'failed', finished_at = now(), last_error = 'the recipient was removed'
        WHERE lower(recipient) = $1 AND channel IN ('email', 'digest') AND state = 'pending'
       RETURNING 1)
     SELECT count(*)::int AS n FROM stopped`,
    [email],
  );
  return [
    counted(rules?.n ?? 0, 'alert rule'),
    counted(copies?.n ?? 0, 'alert in their inbox', 'alerts in their inbox'),
    counted(emails?.n ?? 0, 'alert email not yet sent', 'alert emails not yet sent'),
  ].filter((text) => text !== '');
}

const counted = (n: number, one: string, many = `${one}s`) =>
  n === 0 ? '' : `${n} ${n === 1 ? one : many}`;

export class AlertStore {
  /** Where alerts are posted (admins' webhook targets), in the same engine. */
  readonly webhookTargets: WebhookTargetStore;
  /** The deliveries `raise` writes with each alert, for the queue. */
  readonly deliveries: DeliveryOutbox;

  constructor(private readonly engine: SqlEngine) {
    this.webhookTargets = new WebhookTargetStore(engine);
    this.deliveries = new DeliveryOutbox(engine);
  }

  /** Saves a new rule from a person's input (checked here); `team` rules get no owner. */
  async createRule(
    input: unknown,
    by: string,
    at: Date,
    audited?: Audited<AlertRule>,
    /** Rules an owner may keep: a new one past it is a TooManyAlertRulesError. */
    limit = DEFAULT_RULES_PER_OWNER,
  ): Promise<AlertRule> {
    const rule = alertRuleInputSchema.parse(input);
    const owner = rule.team ? null : email(by);
    return this.engine
      .transaction(async (tx) => {
        await holdRoomForRule(tx, owner, limit);
        const [row] = await tx.query<RuleRow>(
          `INSERT INTO alert_rule (id, owner_email, ${INPUT_COLUMNS}, created_by, created_at,
             updated_by, updated_at, version)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $15, $16, 1)
           RETURNING ${RULE_COLUMNS}`,
          [newId(), owner, ...inputValues(rule), by, at.toISOString()],
        );
        return committed(tx, ruleOf(row as RuleRow), audited);
      })
      .catch((error: unknown) => this.identicalRefusal(error, owner, rule));
  }

  /** `error`, or when the index refused an identical rule, that refusal naming the rule. */
  private async identicalRefusal(
    error: unknown,
    owner: string | null,
    rule: AlertRuleInput,
    id = '',
  ): Promise<never> {
    if (!isIdenticalRule(error)) throw error;
    const [row] = await this.engine.query<RuleRow>(
      `SELECT ${RULE_COLUMNS} FROM alert_rule
        WHERE ${IDENTITY_MATCH} AND NOT kept_duplicate AND id <> $8 LIMIT 1`,
      [...identityValues(owner, rule), id],
    );
    throw new IdenticalAlertRuleError(row ? ruleOf(row) : undefined);
  }

  async rule(id: string): Promise<AlertRule | undefined> {
    const [row] = await this.engine.query<RuleRow>(
      `SELECT ${RULE_COLUMNS} FROM alert_rule WHERE id = $1`,
      [id],
    );
    return row ? ruleOf(row) : undefined;
  }

  /** A person's own rules and the team's, oldest first. */
  async rulesFor(person: string): Promise<AlertRule[]> {
    const rows = await this.engine.query<RuleRow>(
      `SELECT ${RULE_COLUMNS} FROM alert_rule
        WHERE owner_email = $1 OR owner_email IS NULL ORDER BY created_at, id`,
      [email(person)],
    );
    return rows.map(ruleOf);
  }

  /** Every enabled rule: what a sync evaluates its rows against. */
  async enabledRules(): Promise<AlertRule[]> {
    const rows = await this.engine.query<RuleRow>(
      `SELECT ${RULE_COLUMNS} FROM alert_rule WHERE enabled ORDER BY created_at, id`,
    );
    return rows.map(ruleOf);
  }

  /**
   * Replaces rule `id` with `input` when it is still at `version`. A rule keeps its owner: an
   * input whose `team` says otherwise is refused (RangeError; the service checks first).
   */
  async updateRule(
    id: string,
    version: number,
    input: unknown,
    by: string,
    at: Date,
    audited?: Audited<AlertRule>,
  ): Promise<AlertRule> {
    const rule = alertRuleInputSchema.parse(input);
    const updated = await this.engine
      .transaction(async (tx) => {
        // A duplicate kept from before identical rules were refused stays kept while what makes
        // it the same rule is unchanged; changed, the index holds it like any rule.
        const [row] = await tx.query<RuleRow>(
          `UPDATE alert_rule SET (${INPUT_COLUMNS}) = ($4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15),
                  kept_duplicate = kept_duplicate AND kind = $5
                    AND amount_cents IS NOT DISTINCT FROM $6 AND share_percent IS NOT DISTINCT FROM $7
                    AND sub_account_id IS NOT DISTINCT FROM $8 AND card_id IS NOT DISTINCT FROM $9
                    AND webhook_target_id IS NOT DISTINCT FROM $12,
                  updated_by = $16, updated_at = $17, version = version + 1
            WHERE id = $1 AND version = $2 AND (owner_email IS NULL) = $3
            RETURNING ${RULE_COLUMNS}`,
          [id, version, rule.team, ...inputValues(rule), by, at.toISOString()],
        );
        return row && committed(tx, ruleOf(row), audited);
      })
      .catch(async (error: unknown) => {
        if (!isIdenticalRule(error)) throw error;
        const owner = (await this.rule(id))?.ownerEmail ?? null;
        return this.identicalRefusal(error, owner, rule, id);
      });
    if (updated) return updated;
    throw await this.refusal(id, rule.team);
  }

  /** Deletes rule `id` when it is still at `version`; its alerts and inboxes stay. */
  async deleteRule(id: string, version: number, audited?: Audited<{ id: string }>): Promise<void> {
    const deleted = await this.engine.transaction(async (tx) => {
      const [row] = await tx.query<{ id: string }>(
        'DELETE FROM alert_rule WHERE id = $1 AND version = $2 RETURNING id',
        [id, version],
      );
      return row && committed(tx, row, audited);
    });
    if (!deleted) throw await this.refusal(id);
  }

  private async refusal(id: string, team?: boolean): Promise<Error> {
    const current = await this.rule(id);
    if (!current) return new AlertRuleNotFoundError();
    if (team !== undefined && team !== (current.ownerEmail === null)) {
      return new RangeError('a rule keeps its owner: team rules stay team rules');
    }
    return new AlertRuleConflictError(current);
  }

  /**
   * Raises `alerts` (of enabled rules; others are dropped) at `at`. Returns those this call
   * inserted: a key raised before, or by another replica at the same time, is not returned.
   * Each inserted alert of a rule with the inbox channel goes to its owner's inbox, or for a
   * team rule to each of `teamRecipients`.
   */
  async raise(
    alerts: readonly AlertToRaise[],
    options: {
      at: Date;
      teamRecipients: readonly string[];
      /**
       * Everyone who may be alerted now (the people directory's enabled, signed-up people: who
       * team rules go to). A personal rule's owner not among them (disabled, removed) gets none of
       * its alerts: no inbox copy, no email, no digest; nor does a card's owner who is a person
       * in People not among them. Unset: not checked (tests of other things).
       */
      activePeople?: readonly string[];
      /** Emails one recipient gets one by one in an hour; the rest go to their digest. */
      emailsPerHour?: number;
    },
  ): Promise<RaisedAlert[]> {
    // One alert per key (the first), inserted in key order: two raises of overlapping keys wait
    // for each other in the same order, never in a cycle (a deadlock).
    const byKey = new Map<string, AlertToRaise>();
    for (const alert of alerts)
      if (!byKey.has(alert.idempotencyKey)) byKey.set(alert.idempotencyKey, alert);
    const wanted = [...byKey.values()].sort((a, b) =>
      a.idempotencyKey < b.idempotencyKey ? -1 : a.idempotencyKey > b.idempotencyKey ? 1 : 0,
    );
    if (wanted.length === 0) return [];
    const team = [...new Set(options.teamRecipients.map(email))].filter((e) => e !== '');
    const active = options.activePeople && new Set(options.activePeople.map(email));
    const alertable = (who: string) => active === undefined || active.has(email(who));
    const at = options.at.toISOString();
    return this.engine.transaction(async (tx) => {
      // The rules are held (FOR KEY SHARE) until commit: a rule deleted meanwhile waits.
      const ruleRows = await tx.query<RaiseRuleRow>(
        `SELECT id, owner_email, channel_inbox, channel_email, webhook_target_id, digest,
                to_card_owner
           FROM alert_rule WHERE id = ANY($1::text[]) AND enabled ORDER BY id FOR KEY SHARE`,
        [[...new Set(wanted.map((a) => a.ruleId))]],
      );
      const rules = new Map(ruleRows.map((r) => [r.id, r]));
      // Whom the rule is for goes with the alert: who may read its name (rule-name-for.ts).
      const live = wanted
        .filter((a) => rules.has(a.ruleId))
        .map((a) => ({
          ...a,
          id: newId(),
          payload: maskedDeep({
            ...a.payload,
            ruleOwner: (rules.get(a.ruleId) as RaiseRuleRow).owner_email,
          }),
        }));
      if (live.length === 0) return [];
      const inserted = await tx.query<{ id: string }>(
        `INSERT INTO alert (id, rule_id, idempotency_key, raised_at, payload)
         SELECT a.id, a.rule_id, a.key, $5::timestamptz, a.payload::jsonb
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY
                AS a(id, rule_id, key, payload, n)
          ORDER BY a.n
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING id`,
        [
          live.map((a) => a.id),
          live.map((a) => a.ruleId),
          live.map((a) => a.idempotencyKey),
          live.map((a) => JSON.stringify(a.payload)),
          at,
        ],
      );
      const ours = new Set(inserted.map((r) => r.id));
      const cardOf = (a: (typeof live)[number]) =>
        rules.get(a.ruleId)?.to_card_owner ? a.payload.card?.id : undefined;
      const owners = await cardOwnersOf(
        tx,
        live.flatMap((a) => {
          const card = ours.has(a.id) ? cardOf(a) : undefined;
          return card === undefined ? [] : [card];
        }),
      );
      const raised: RaisedAlert[] = live
        .filter((a) => ours.has(a.id))
        .map((a) => {
          const rule = rules.get(a.ruleId) as RaiseRuleRow;
          const card = cardOf(a);
          const found = card === undefined ? undefined : owners.get(storable(card));
          // A card's owner who is a person no longer alerted (disabled) is told nothing.
          const owner = found && (!found.person || alertable(found.email)) ? found : undefined;
          const ownerAlerted = rule.owner_email !== null && alertable(rule.owner_email);
          // The card's owner sees it in their inbox too when they are a person in People.
          const recipients = [
            ...new Set([
              ...(rule.owner_email === null ? team : ownerAlerted ? [rule.owner_email] : []),
              ...(owner?.person ? [owner.email] : []),
            ]),
          ];
          return {
            id: a.id,
            ruleId: a.ruleId,
            idempotencyKey: a.idempotencyKey,
            raisedAt: at,
            payload: a.payload,
            ownerEmail: rule.owner_email,
            ...(rule.owner_email !== null && !ownerAlerted ? { ownerAlerted: false } : {}),
            channels: {
              inbox: rule.channel_inbox,
              email: rule.channel_email,
              webhookTargetId: rule.webhook_target_id,
            },
            digest: rule.digest,
            cardOwnerEmail: owner?.email ?? null,
            inboxRecipients: rule.channel_inbox ? recipients : [],
          };
        });
      await this.deliver(tx, raised, team, options.at, options.emailsPerHour);
      return raised;
    });
  }

  /**
   * Puts `raised` in its inboxes and writes its deliveries, in the raise's transaction: an alert
   * raised is an alert delivered, once. Each recipient's emails past the hour's cap are folded
   * into their digest (email-cap.ts). Due at once by the database's clock, the one the delivery
   * worker reads.
   */
  private async deliver(
    tx: SqlQueryable,
    raised: readonly RaisedAlert[],
    team: readonly string[],
    at: Date,
    emailsPerHour = DEFAULT_EMAILS_PER_HOUR,
  ): Promise<void> {
    const when = at.toISOString();
    const inbox = raised.flatMap((a) => a.inboxRecipients.map((r) => [a.id, r] as const));
    if (inbox.length > 0) {
      await tx.query(
        `INSERT INTO alert_inbox (alert_id, recipient_email, raised_at)
         SELECT i.alert_id, i.recipient, $3::timestamptz
           FROM unnest($1::text[], $2::text[]) AS i(alert_id, recipient)
         ON CONFLICT DO NOTHING`,
        [inbox.map(([id]) => id), inbox.map(([, r]) => r), when],
      );
    }
    const deliveries = raised.flatMap((a) => deliveriesOf(a, team));
    if (deliveries.length === 0) return;
    const states = await capEmails(tx, deliveries, at, emailsPerHour);
    await tx.query(
      `INSERT INTO alert_delivery (key, alert_id, rule_id, channel, recipient, state,
         created_at, next_attempt_at)
       SELECT d.key, d.alert_id, d.rule_id, d.channel, d.recipient, d.state, $7::timestamptz,
              now()
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
              AS d(key, alert_id, rule_id, channel, recipient, state)
       ON CONFLICT (key) DO NOTHING`,
      [
        deliveries.map((d) => d.key),
        deliveries.map((d) => d.alertId),
        deliveries.map((d) => d.ruleId),
        deliveries.map((d) => d.channel),
        deliveries.map((d) => d.recipient),
        states,
        when,
      ],
    );
  }

  /**
   * Whether `recipient` is a card's owner (of `cardId`, or of any card) who is not a person in
   * People: an address a card was given, not anyone's account, so the people directory's
   * standing does not apply to it (`alert-delivery.ts` checks a delivery when it sends it).
   */
  async cardOwnerOutsidePeople(recipient: string, cardId?: string): Promise<boolean> {
    const [row] = await this.engine.query<{ yes: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM card_owner co
          WHERE lower(co.owner_email) = $1 AND ($2::text IS NULL OR co.card_id = $2)
            AND NOT EXISTS (SELECT 1 FROM person p WHERE lower(p.email) = $1)) AS yes`,
      [email(recipient), cardId === undefined ? null : storable(cardId)],
    );
    return row?.yes === true;
  }

  /**
   * Sends a test of rule `ruleId` (on or off) through its channels to `recipient` alone, a team
   * rule's too: into their inbox if the rule has the inbox, by email to them at once (a digest
   * rule's too) if it emails, and to its webhook target. The example says what the rule would
   * send (`alert-test.ts`). Undefined when there is no such rule; `audited` commits with it.
   */
  async raiseTest(
    ruleId: string,
    options: {
      at: Date;
      recipient: string;
      emailsPerHour?: number;
      audited?: Audited<RaisedAlert>;
    },
  ): Promise<RaisedAlert | undefined> {
    const recipient = email(options.recipient);
    return this.engine.transaction(async (tx) => {
      const [row] = await tx.query<RuleRow>(
        `SELECT ${RULE_COLUMNS} FROM alert_rule WHERE id = $1 FOR KEY SHARE`,
        [ruleId],
      );
      if (!row) return undefined;
      const rule = ruleOf(row);
      const id = newId();
      const payload = maskedDeep({
        ...testAlertPayload(rule, options.at),
        ruleOwner: rule.ownerEmail,
      });
      const key = testAlertKey(rule.id, id);
      await tx.query(
        `INSERT INTO alert (id, rule_id, idempotency_key, raised_at, payload)
         VALUES ($1, $2, $3, $4::timestamptz, $5::jsonb)`,
        [id, rule.id, key, options.at.toISOString(), JSON.stringify(payload)],
      );
      const raised: RaisedAlert = {
        id,
        ruleId: rule.id,
        idempotencyKey: key,
        raisedAt: options.at.toISOString(),
        payload,
        ownerEmail: recipient,
        channels: rule.channels,
        digest: false,
        inboxRecipients: rule.channels.inbox ? [recipient] : [],
      };
      await this.deliver(tx, [raised], [recipient], options.at, options.emailsPerHour);
      return committed(tx, raised, options.audited);
    });
  }

  /** A page of `person`'s inbox, newest first; `next` is where the following page starts. */
  async inbox(
    person: string,
    options: { unreadOnly?: boolean; limit?: number; cursor?: string } = {},
  ): Promise<{ items: InboxItem[]; next?: string }> {
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 1), MAX_INBOX_PAGE);
    const after = options.cursor === undefined ? null : decodeCursor(options.cursor);
    const rows = await this.engine.query<{
      alert_id: string;
      rule_id: string | null;
      raised_at: Date | string;
      read_at: Date | string | null;
      payload: AlertPayload;
      rule_exists: boolean;
      rule_owner: string | null;
    }>(
      `SELECT i.alert_id, a.rule_id, i.raised_at, i.read_at, a.payload,
              r.id IS NOT NULL AS rule_exists, r.owner_email AS rule_owner
         FROM alert_inbox i JOIN alert a ON a.id = i.alert_id
         LEFT JOIN alert_rule r ON r.id = a.rule_id
        WHERE i.recipient_email = $1 AND ($2::boolean IS NOT TRUE OR i.read_at IS NULL)
          AND ($3::timestamptz IS NULL OR (i.raised_at, i.alert_id) < ($3::timestamptz, $4::text))
        ORDER BY i.raised_at DESC, i.alert_id DESC
        LIMIT $5`,
      [
        email(person),
        options.unreadOnly === true,
        after?.[0] ?? null,
        after?.[1] ?? null,
        limit + 1,
      ],
    );
    const items = rows.slice(0, limit).map((r) => ({
      alertId: r.alert_id,
      ruleId: r.rule_id,
      raisedAt: iso(r.raised_at),
      readAt: r.read_at === null ? null : iso(r.read_at),
      payload: withRuleOwner(
        typeof r.payload === 'string' ? (JSON.parse(r.payload) as AlertPayload) : r.payload,
        { exists: r.rule_exists, ownerEmail: r.rule_owner },
      ),
    }));
    const last = items.at(-1);
    return rows.length > limit && last
      ? { items, next: encodeCursor(last.raisedAt, last.alertId) }
      : { items };
  }

  /** How many alerts in `person`'s inbox are unread: the bell's number. */
  async unreadCount(person: string): Promise<number> {
    const [row] = await this.engine.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM alert_inbox WHERE recipient_email = $1 AND read_at IS NULL',
      [email(person)],
    );
    return Number(row?.n ?? 0);
  }

  /** Marks these alerts (or all) read in `person`'s inbox; returns how many were unread. */
  async markRead(person: string, alertIds: readonly string[] | 'all', at: Date): Promise<number> {
    const all = alertIds === 'all';
    if (!all && alertIds.length === 0) return 0;
    const rows = await this.engine.query<{ alert_id: string }>(
      `UPDATE alert_inbox SET read_at = $2
        WHERE recipient_email = $1 AND read_at IS NULL AND ($3::boolean OR alert_id = ANY($4::text[]))
        RETURNING alert_id`,
      [email(person), at.toISOString(), all, all ? [] : [...alertIds]],
    );
    return rows.length;
  }
}
