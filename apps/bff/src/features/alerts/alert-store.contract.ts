// One contract for the alert store, run on every engine the index runs on (the embedded engine
// and PostgreSQL): rules saved, versioned and checked; an alert raised once per key, even by
// many raises at once from two engines on one database; the inbox, its unread count and reads.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { containsCardNumber } from '../../platform/security/card-numbers';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { testPan } from '../../test/test-pan';
import type { AlertPayload, AlertToRaise } from './alert-evaluator';
import type { AlertRule } from './alert-rules';
import {
  AlertRuleConflictError,
  AlertRuleNotFoundError,
  AlertStore,
  BadInboxCursorError,
} from './alert-store';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute));
/** A card number as people write it, made at run time. */
const PAN = (testPan(1_234_567).match(/\d{4}/g) ?? []).join(' ');

const declinedRule = (over: Record<string, unknown> = {}) => ({
  kind: 'declined',
  name: 'Declines',
  channels: { inbox: true, email: false },
  ...over,
});

const payloadOf = (transactionId: string, merchant = 'ACME'): AlertPayload => ({
  kind: 'declined',
  ruleName: 'Declines',
  subAccount: { id: 'sa-1' },
  transaction: {
    id: transactionId,
    at: '2026-11-27T08:00:00.000Z',
    amountCents: -12_345,
    status: 'declined',
    description: 'Card purchase',
    merchant,
  },
});

const alertOf = (rule: AlertRule, transactionId: string): AlertToRaise => ({
  ruleId: rule.id,
  idempotencyKey: `${rule.id}:${transactionId}`,
  payload: payloadOf(transactionId),
});

async function refusalOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('not refused');
    },
    (e: unknown) => e,
  );
}

const b64 = (text: string) => Buffer.from(text).toString('base64url');

/**
 * Inbox cursors nobody issued, each a 400 over HTTP: every one of these once reached the engine
 * and failed there (a 500), or could have. Exported for the routes' test.
 */
export const tamperedInboxCursors: readonly (readonly [string, string])[] = [
  ['not base64url', 'nope!'],
  ['base64 with padding', `${b64('["2026-11-27T09:02:00.000Z","abc"]')}=`],
  ['not JSON', b64('not json')],
  ['garbage JSON', b64('{"a":')],
  ['an object', b64('{"at":"2026-11-27T09:02:00.000Z","id":"abc"}')],
  ['null', b64('null')],
  ['one member', b64('["2026-11-27T09:02:00.000Z"]')],
  ['three members', b64('["2026-11-27T09:02:00.000Z","abc","x"]')],
  ['numbers', b64('[1764234120000,1]')],
  ['an id of another type', b64('["2026-11-27T09:02:00.000Z",5]')],
  ['a date JavaScript reads and the engine does not', b64('["1","abc"]')],
  ['a year past the engine’s', b64('["+275760-09-13T00:00:00.000Z","abc"]')],
  ['a negative year', b64('["-000001-01-01T00:00:00.000Z","abc"]')],
  ['no such day', b64('["2026-02-30T00:00:00.000Z","abc"]')],
  ['words for a date', b64('["March 7","abc"]')],
  ['a date with no time', b64('["2026-11-27","abc"]')],
  ['a NUL in the id', b64('["2026-11-27T09:02:00.000Z","a\\u0000b"]')],
  ['an id with spaces', b64('["2026-11-27T09:02:00.000Z","a b"]')],
  ['an empty id', b64('["2026-11-27T09:02:00.000Z",""]')],
];

export function alertStoreContract(
  name: string,
  open: () => Promise<{ engine: SqlEngine; second: SqlEngine; close(): Promise<void> }>,
): void {
  describe(`the alert store: ${name}`, () => {
    let engine: SqlEngine;
    let second: SqlEngine;
    let close: () => Promise<void>;
    let store: AlertStore;
    beforeAll(async () => {
      ({ engine, second, close } = await open());
      store = new AlertStore(engine);
    }, 60_000);
    afterAll(() => close?.());
    beforeEach(async () => {
      await engine.query('DELETE FROM alert_delivery');
      await engine.query('DELETE FROM alert_inbox');
      await engine.query('DELETE FROM alert');
      await engine.query('DELETE FROM alert_rule');
      await engine.query('DELETE FROM alert_webhook_target');
      // The target rules below send to (a rule names an existing one).
      await engine.query(
        `INSERT INTO alert_webhook_target (id, name, url, secret, created_by, created_at)
         VALUES ('hook-1', 'Ops', 'https://hooks.example.test/ops', repeat('s', 32),
                 'admin@example.test', now())`,
      );
    });

    describe('rules', () => {
      it('saves a person’s rule as theirs and a team rule as nobody’s, and reads them back', async () => {
        const mine = await store.createRule(
          {
            kind: 'amount_above',
            name: '  Big spend ',
            amountCents: 50_000,
            cardId: 'card-1',
            channels: { inbox: true, email: true },
            digest: true,
          },
          'Ana@Example.test',
          at(1),
        );
        expect(mine).toEqual({
          id: mine.id,
          ownerEmail: 'ana@example.test',
          name: 'Big spend',
          kind: 'amount_above',
          amountCents: 50_000,
          cardId: 'card-1',
          channels: { inbox: true, email: true, webhookTargetId: null },
          digest: true,
          enabled: true,
          cardOwner: false,
          createdBy: 'Ana@Example.test',
          createdAt: at(1).toISOString(),
          updatedBy: 'Ana@Example.test',
          updatedAt: at(1).toISOString(),
          version: 1,
        });
        const team = await store.createRule(
          {
            kind: 'utilisation_above',
            name: 'Cards near their limit',
            sharePercent: 80,
            team: true,
            channels: { inbox: true, email: false, webhookTargetId: 'hook-1' },
          },
          'admin@example.test',
          at(2),
        );
        expect(team).toMatchObject({ ownerEmail: null, sharePercent: 80, version: 1 });
        const theirs = await store.createRule(
          {
            kind: 'balance_below',
            name: 'Low',
            amountCents: 1,
            subAccountId: 'sa-9',
            channels: { inbox: false, email: true },
          },
          'bo@example.test',
          at(3),
        );
        expect(await store.rule(mine.id)).toEqual(mine);
        expect(await store.rulesFor('ana@example.test')).toEqual([mine, team]);
        expect((await store.rulesFor('bo@example.test')).map((r) => r.id)).toEqual([
          team.id,
          theirs.id,
        ]);
        expect(await store.rule('missing')).toBeUndefined();
      });

      it('changes a rule made on its current version, counting versions, and refuses a stale one with the rule as it is', async () => {
        const rule = await store.createRule(declinedRule(), 'ana@example.test', at(1));
        const changed = await store.updateRule(
          rule.id,
          1,
          {
            kind: 'new_category',
            name: 'New places',
            channels: { inbox: true, email: false },
            enabled: false,
          },
          'ana@example.test',
          at(2),
        );
        expect(changed).toMatchObject({
          id: rule.id,
          kind: 'new_category',
          name: 'New places',
          enabled: false,
          ownerEmail: 'ana@example.test',
          createdAt: at(1).toISOString(),
          updatedAt: at(2).toISOString(),
          version: 2,
        });
        const stale = await refusalOf(
          store.updateRule(rule.id, 1, declinedRule({ name: 'x' }), 'bo@example.test', at(3)),
        );
        expect(stale).toBeInstanceOf(AlertRuleConflictError);
        expect((stale as AlertRuleConflictError).current).toEqual(changed);
        // A version from the future is as stale as one from the past.
        expect(
          await refusalOf(store.updateRule(rule.id, 7, declinedRule(), 'ana@example.test', at(3))),
        ).toBeInstanceOf(AlertRuleConflictError);
        expect(await refusalOf(store.deleteRule(rule.id, 1))).toBeInstanceOf(
          AlertRuleConflictError,
        );
        expect(await store.rule(rule.id)).toEqual(changed);

        await store.deleteRule(rule.id, 2);
        expect(await store.rule(rule.id)).toBeUndefined();
        expect(await refusalOf(store.deleteRule(rule.id, 2))).toBeInstanceOf(
          AlertRuleNotFoundError,
        );
        expect(
          await refusalOf(store.updateRule(rule.id, 2, declinedRule(), 'ana@example.test', at(4))),
        ).toBeInstanceOf(AlertRuleNotFoundError);
      });

      it('of two changes made at once from the same version, saves exactly one', async () => {
        const rule = await store.createRule(declinedRule(), 'ana@example.test', at(1));
        const other = new AlertStore(second);
        const ends = await Promise.allSettled(
          Array.from({ length: 6 }, (_, i) =>
            (i % 2 ? other : store).updateRule(
              rule.id,
              1,
              declinedRule({ name: `Name ${i}` }),
              'ana@example.test',
              at(2),
            ),
          ),
        );
        const saved = ends.filter((e) => e.status === 'fulfilled');
        expect(saved).toHaveLength(1);
        for (const end of ends) {
          if (end.status === 'rejected') expect(end.reason).toBeInstanceOf(AlertRuleConflictError);
        }
        expect((await store.rule(rule.id))?.version).toBe(2);
      });

      it('keeps a rule’s owner: a person’s rule does not become the team’s', async () => {
        const rule = await store.createRule(declinedRule(), 'ana@example.test', at(1));
        expect(
          await refusalOf(
            store.updateRule(rule.id, 1, declinedRule({ team: true }), 'admin@example.test', at(2)),
          ),
        ).toBeInstanceOf(RangeError);
        expect(await store.rule(rule.id)).toEqual(rule);
      });

      it('refuses a rule a person could not mean, saying why, and saves nothing', async () => {
        const refused = async (input: unknown) => {
          const error = await refusalOf(store.createRule(input, 'ana@example.test', at(1)));
          expect(error).toBeInstanceOf(ZodError);
          return (error as ZodError).issues.map((i) => i.message);
        };
        expect(await refused(declinedRule({ kind: 'sunny_day' }))).toEqual([
          'kind must be one of declined, amount_above, utilisation_above, balance_below, new_category',
        ]);
        expect(await refused(declinedRule({ kind: 'amount_above', amountCents: -5 }))).toEqual([
          'amountCents must be more than 0 cents',
        ]);
        expect(await refused(declinedRule({ kind: 'balance_below', amountCents: 10.5 }))).toEqual([
          'amountCents must be a whole number of cents',
        ]);
        expect(
          await refused(declinedRule({ kind: 'utilisation_above', sharePercent: 101 })),
        ).toEqual(['sharePercent must be from 1 to 100']);
        expect(await refused(declinedRule({ kind: 'utilisation_above', sharePercent: 0 }))).toEqual(
          ['sharePercent must be from 1 to 100'],
        );
        expect(await refused(declinedRule({ channels: { inbox: false, email: false } }))).toEqual([
          'choose at least one channel: inbox, email or a webhook',
        ]);
        expect(await refused(declinedRule({ name: `Card ${PAN}` }))).toEqual([
          'name must not hold a card number',
        ]);
        expect(await refused(declinedRule({ amountCents: 5 }))).toHaveLength(1);
        expect(await store.rulesFor('ana@example.test')).toEqual([]);
      });

      it('is guarded by the schema too: a rule without its kind’s amount is refused by the engine', async () => {
        await expect(
          engine.query(
            `INSERT INTO alert_rule (id, owner_email, name, kind, channel_inbox, channel_email,
               created_by, created_at, updated_by, updated_at)
             VALUES ('r', 'ana@example.test', 'x', 'amount_above', true, false, 'a', now(), 'a', now())`,
          ),
        ).rejects.toThrow();
      });
    });

    describe('raising', () => {
      it('returns an alert the first time its key is raised only, and puts it in the owner’s inbox once', async () => {
        const rule = await store.createRule(declinedRule(), 'ana@example.test', at(1));
        const first = await store.raise([alertOf(rule, 't1'), alertOf(rule, 't2')], {
          at: at(2),
          teamRecipients: ['someone@example.test'],
        });
        expect(first.map((a) => a.idempotencyKey)).toEqual([`${rule.id}:t1`, `${rule.id}:t2`]);
        expect(first[0]).toMatchObject({
          ruleId: rule.id,
          raisedAt: at(2).toISOString(),
          payload: payloadOf('t1'),
          ownerEmail: 'ana@example.test',
          channels: { inbox: true, email: false, webhookTargetId: null },
          digest: false,
          inboxRecipients: ['ana@example.test'],
        });
        const again = await store.raise(
          [alertOf(rule, 't2'), alertOf(rule, 't3'), alertOf(rule, 't3')],
          {
            at: at(3),
            teamRecipients: [],
          },
        );
        expect(again.map((a) => a.idempotencyKey)).toEqual([`${rule.id}:t3`]);
        expect(await store.unreadCount('ana@example.test')).toBe(3);
        expect(await store.unreadCount('someone@example.test')).toBe(0);
      });

      it('puts a team rule’s alert in each recipient’s inbox, and a rule without the inbox channel in none', async () => {
        const team = await store.createRule(
          declinedRule({ team: true }),
          'admin@example.test',
          at(1),
        );
        const mailOnly = await store.createRule(
          declinedRule({ channels: { inbox: false, email: true } }),
          'ana@example.test',
          at(1),
        );
        const raised = await store.raise([alertOf(team, 't1'), alertOf(mailOnly, 't1')], {
          at: at(2),
          teamRecipients: ['Bo@Example.test', 'cy@example.test', 'bo@example.test'],
        });
        expect(raised.map((a) => [a.ownerEmail, a.inboxRecipients])).toEqual(
          expect.arrayContaining([
            [null, ['bo@example.test', 'cy@example.test']],
            ['ana@example.test', []],
          ]),
        );
        expect(await store.unreadCount('bo@example.test')).toBe(1);
        expect(await store.unreadCount('cy@example.test')).toBe(1);
        expect(await store.unreadCount('ana@example.test')).toBe(0);
      });

      it("goes to the card's owner too when its rule says so: their email, and their inbox when they are a person", async () => {
        await engine.query('DELETE FROM card_owner');
        await engine.query("DELETE FROM person WHERE email = 'owner@example.test'");
        await engine.query(
          `INSERT INTO card_owner (card_id, owner_name, owner_key, owner_email, updated_by, updated_at)
           VALUES ('card-a', 'Holder', 'holder', 'holder@example.test', 'a', now()),
                  ('card-b', 'Owner', 'owner', 'owner@example.test', 'a', now()),
                  ('card-c', 'No Email', 'no email', NULL, 'a', now())`,
        );
        await engine.query(
          `INSERT INTO person (email, role, source, created_at, updated_at)
           VALUES ('owner@example.test', 'finance', 'invited', now(), now())`,
        );
        const toOwner = await store.createRule(
          declinedRule({ channels: { inbox: true, email: true }, cardOwner: true }),
          'ana@example.test',
          at(1),
        );
        const notToOwner = await store.createRule(
          declinedRule({ channels: { inbox: true, email: true }, subAccountId: 'sa-1' }),
          'ana@example.test',
          at(1),
        );
        expect(toOwner.cardOwner).toBe(true);
        expect(notToOwner.cardOwner).toBe(false);
        const onCard = (rule: AlertRule, transactionId: string, cardId?: string) => {
          const alert = alertOf(rule, transactionId);
          return cardId === undefined
            ? alert
            : { ...alert, payload: { ...alert.payload, card: { id: cardId } } };
        };
        const raised = await store.raise(
          [
            onCard(toOwner, 't1', 'card-a'),
            onCard(toOwner, 't2', 'card-b'),
            onCard(toOwner, 't3', 'card-c'),
            onCard(toOwner, 't4'),
            onCard(notToOwner, 't5', 'card-b'),
          ],
          { at: at(2), teamRecipients: [] },
        );
        const byTransaction = new Map(
          raised.map((a) => [
            (a.payload as { transaction: { id: string } }).transaction.id,
            [a.cardOwnerEmail ?? null, a.inboxRecipients],
          ]),
        );
        expect(Object.fromEntries(byTransaction)).toEqual({
          // A cardholder who does not sign in: an email, no inbox.
          t1: ['holder@example.test', ['ana@example.test']],
          t2: ['owner@example.test', ['ana@example.test', 'owner@example.test']],
          t3: [null, ['ana@example.test']],
          t4: [null, ['ana@example.test']],
          t5: [null, ['ana@example.test']],
        });
        const emails = await engine.query<{ recipient: string; n: number }>(
          `SELECT recipient, count(*)::int AS n FROM alert_delivery WHERE channel = 'email'
            GROUP BY recipient ORDER BY recipient`,
        );
        expect(emails).toEqual([
          { recipient: 'ana@example.test', n: 5 },
          { recipient: 'holder@example.test', n: 1 },
          { recipient: 'owner@example.test', n: 1 },
        ]);
        expect(await store.unreadCount('owner@example.test')).toBe(1);
        await engine.query('DELETE FROM card_owner');
        await engine.query("DELETE FROM person WHERE email = 'owner@example.test'");
      });

      it('raises nothing for a disabled or deleted rule', async () => {
        const off = await store.createRule(
          declinedRule({ enabled: false }),
          'ana@example.test',
          at(1),
        );
        const gone = await store.createRule(
          declinedRule({ subAccountId: 'sa-1' }),
          'ana@example.test',
          at(1),
        );
        await store.deleteRule(gone.id, 1);
        expect(
          await store.raise([alertOf(off, 't1'), alertOf(gone, 't1')], {
            at: at(2),
            teamRecipients: [],
          }),
        ).toEqual([]);
        expect(await store.raise([], { at: at(2), teamRecipients: [] })).toEqual([]);
        expect(await store.unreadCount('ana@example.test')).toBe(0);
      });

      it('keeps a card number out of what it stores, whatever the payload says', async () => {
        const rule = await store.createRule(declinedRule(), 'ana@example.test', at(1));
        const alert = { ...alertOf(rule, 't1'), payload: payloadOf('t1', `SHOP ${PAN} LTD`) };
        const [raised] = await store.raise([alert], { at: at(2), teamRecipients: [] });
        expect(raised?.payload).toMatchObject({
          transaction: { merchant: `SHOP •••• ${PAN.slice(-4)} LTD` },
        });
        const [stored] = await engine.query<{ payload: unknown }>(
          'SELECT payload::text AS payload FROM alert',
        );
        expect(containsCardNumber(String(stored?.payload))).toBe(false);
        const { items } = await store.inbox('ana@example.test');
        expect(JSON.stringify(items)).not.toContain('4000');
      });

      it('of 20 raises at once from two engines over overlapping keys, each key is returned once and inboxed once per recipient', async () => {
        const mine = await store.createRule(declinedRule(), 'ana@example.test', at(1));
        const team = await store.createRule(
          declinedRule({ team: true }),
          'admin@example.test',
          at(1),
        );
        const stores = [store, new AlertStore(second)];
        const recipients = ['bo@example.test', 'cy@example.test'];
        // Raise i covers transactions i…i+9 of both rules, in an order of its own.
        const raises = await Promise.all(
          Array.from({ length: 20 }, (_, i) => {
            const ids = Array.from({ length: 10 }, (_, k) => `t${String(i + k).padStart(2, '0')}`);
            const alerts = [mine, team].flatMap((rule) => ids.map((id) => alertOf(rule, id)));
            if (i % 2) alerts.reverse();
            return (stores[i % 2] as AlertStore).raise(alerts, {
              at: at(2),
              teamRecipients: recipients,
            });
          }),
        );
        const keys = raises.flat().map((a) => a.idempotencyKey);
        expect(keys).toHaveLength(2 * 29);
        expect(new Set(keys).size).toBe(keys.length);
        const [counts] = await engine.query<{ alerts: number; inbox: number; pairs: number }>(
          `SELECT (SELECT count(*)::int FROM alert) AS alerts,
                  (SELECT count(*)::int FROM alert_inbox) AS inbox,
                  (SELECT count(DISTINCT (alert_id, recipient_email))::int FROM alert_inbox) AS pairs`,
        );
        expect(counts).toEqual({ alerts: 58, inbox: 29 * 3, pairs: 29 * 3 });
        expect(await store.unreadCount('ana@example.test')).toBe(29);
        expect(await store.unreadCount('bo@example.test')).toBe(29);
      }, 60_000);
    });

    describe('the inbox', () => {
      async function fiveAlerts() {
        const rule = await store.createRule(declinedRule(), 'ana@example.test', at(0));
        const raised = [];
        for (let i = 1; i <= 5; i++) {
          raised.push(
            ...(await store.raise([alertOf(rule, `t${i}`)], { at: at(i), teamRecipients: [] })),
          );
        }
        return { rule, ids: raised.map((a) => a.id) };
      }

      it('pages newest first with a cursor, and shows only the unread when asked', async () => {
        const { rule, ids } = await fiveAlerts();
        const first = await store.inbox('ANA@example.test', { limit: 2 });
        expect(first.items.map((i) => i.alertId)).toEqual([ids[4], ids[3]]);
        expect(first.items[0]).toEqual({
          alertId: ids[4],
          ruleId: rule.id,
          raisedAt: at(5).toISOString(),
          readAt: null,
          // Whom the rule is for is kept with the alert (who may read its name).
          payload: { ...payloadOf('t5'), ruleOwner: 'ana@example.test' },
        });
        const second = await store.inbox('ana@example.test', { limit: 2, cursor: first.next });
        expect(second.items.map((i) => i.alertId)).toEqual([ids[2], ids[1]]);
        const last = await store.inbox('ana@example.test', { limit: 2, cursor: second.next });
        expect(last.items.map((i) => i.alertId)).toEqual([ids[0]]);
        expect(last.next).toBeUndefined();

        expect(
          await store.markRead('ana@example.test', [ids[4] as string, ids[2] as string], at(9)),
        ).toBe(2);
        const unread = await store.inbox('ana@example.test', { unreadOnly: true });
        expect(unread.items.map((i) => i.alertId)).toEqual([ids[3], ids[1], ids[0]]);
        const all = await store.inbox('ana@example.test');
        expect(all.items.find((i) => i.alertId === ids[4])?.readAt).toBe(at(9).toISOString());
        expect(await store.inbox('bo@example.test')).toEqual({ items: [] });
      });

      it('counts the unread and marks read only what is the person’s and still unread', async () => {
        const { ids } = await fiveAlerts();
        expect(await store.unreadCount('ana@example.test')).toBe(5);
        expect(await store.markRead('bo@example.test', ids, at(9))).toBe(0);
        expect(await store.markRead('ana@example.test', [ids[0] as string], at(9))).toBe(1);
        expect(await store.markRead('ana@example.test', [ids[0] as string], at(10))).toBe(0);
        expect(await store.markRead('ana@example.test', [], at(10))).toBe(0);
        expect(await store.unreadCount('ana@example.test')).toBe(4);
        expect(await store.markRead('ana@example.test', 'all', at(11))).toBe(4);
        expect(await store.unreadCount('ana@example.test')).toBe(0);
        const { items } = await store.inbox('ana@example.test');
        expect(items.find((i) => i.alertId === ids[0])?.readAt).toBe(at(9).toISOString());
      });

      it('keeps an alert in the inbox when its rule is deleted', async () => {
        const { rule, ids } = await fiveAlerts();
        await store.deleteRule(rule.id, 1);
        const { items } = await store.inbox('ana@example.test');
        expect(items.map((i) => [i.alertId, i.ruleId])).toEqual(
          [...ids].reverse().map((id) => [id, null]),
        );
      });

      it('refuses every cursor it did not issue, before the engine sees it', async () => {
        const { ids } = await fiveAlerts();
        const issued = (await store.inbox('ana@example.test', { limit: 2 })).next as string;
        expect((await store.inbox('ana@example.test', { cursor: issued })).items).toHaveLength(3);
        for (const [what, cursor] of [...tamperedInboxCursors, ['empty', '']]) {
          const refused = await refusalOf(store.inbox('ana@example.test', { cursor }));
          expect([what, refused]).toEqual([what, expect.any(BadInboxCursorError)]);
        }
        expect(ids).toHaveLength(5);
      });
    });

    describe('test alerts', () => {
      it('go through the rule’s channels to the one who sent them, a team rule’s and an off rule’s too', async () => {
        const team = await store.createRule(
          declinedRule({
            team: true,
            name: 'Team declines',
            enabled: false,
            channels: { inbox: true, email: true, webhookTargetId: 'hook-1' },
            digest: true,
          }),
          'admin@example.test',
          at(1),
        );
        const sent = await store.raiseTest(team.id, { at: at(2), recipient: 'Admin@Example.test' });
        expect(sent).toMatchObject({
          ruleId: team.id,
          idempotencyKey: `test:${team.id}:${sent?.id}`,
          inboxRecipients: ['admin@example.test'],
          payload: { test: true, kind: 'declined', ruleName: 'Team declines' },
        });
        // In the sender's inbox alone; emailed to them at once though the rule emails a digest;
        // posted to the rule's webhook.
        const { items } = await store.inbox('admin@example.test');
        expect(items.map((i) => [i.alertId, i.payload.test])).toEqual([[sent?.id, true]]);
        expect(await store.unreadCount('ana@example.test')).toBe(0);
        const deliveries = await engine.query<{ channel: string; recipient: string }>(
          'SELECT channel, recipient FROM alert_delivery WHERE alert_id = $1 ORDER BY channel',
          [sent?.id],
        );
        expect(deliveries).toEqual([
          { channel: 'email', recipient: 'admin@example.test' },
          { channel: 'webhook', recipient: 'hook-1' },
        ]);
        // Each test is an alert of its own.
        const again = await store.raiseTest(team.id, {
          at: at(2),
          recipient: 'admin@example.test',
        });
        expect(again?.id).not.toBe(sent?.id);
        expect(await store.unreadCount('admin@example.test')).toBe(2);
      });

      it('leave out the channels the rule does not use; a rule that is not there sends nothing', async () => {
        const rule = await store.createRule(
          declinedRule({ channels: { inbox: false, email: true } }),
          'ana@example.test',
          at(1),
        );
        const sent = await store.raiseTest(rule.id, { at: at(2), recipient: 'ana@example.test' });
        expect(sent?.inboxRecipients).toEqual([]);
        expect(await store.unreadCount('ana@example.test')).toBe(0);
        const [row] = await engine.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM alert_delivery WHERE alert_id = $1',
          [sent?.id],
        );
        expect(Number(row?.n)).toBe(1);
        expect(
          await store.raiseTest('no-such-rule', { at: at(3), recipient: 'ana@example.test' }),
        ).toBeUndefined();
        const [alerts] = await engine.query<{ n: number }>('SELECT count(*)::int AS n FROM alert');
        expect(Number(alerts?.n)).toBe(1);
      });
    });
  });
}
