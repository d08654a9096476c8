// One contract for the alert store's limits, run on every engine (embedded and PostgreSQL): a
// cap of rules per owner and no identical rules, held when many requests from two engines on
// one database ask at once; a cap of emails per recipient and hour, the rest folded for the
// recipient's digest, held when two engines raise at once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import type { AlertToRaise } from './alert-evaluator';
import { IdenticalAlertRuleError, TooManyAlertRulesError } from './alert-rule-limits';
import type { AlertRule } from './alert-rules';
import { AlertStore } from './alert-store';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute));
const ANA = 'ana@example.test';
const BO = 'bo@example.test';

const amountRule = (amountCents: number, over: Record<string, unknown> = {}) => ({
  kind: 'amount_above',
  name: `Over ${amountCents}`,
  amountCents,
  channels: { inbox: true, email: true },
  ...over,
});

const alertsOf = (rule: AlertRule, ids: readonly string[]): AlertToRaise[] =>
  ids.map((id) => ({
    ruleId: rule.id,
    idempotencyKey: `${rule.id}:${id}`,
    payload: {
      kind: 'amount_above',
      ruleName: rule.name,
      subAccount: { id: 'sa-1' },
      transaction: {
        id,
        at: '2026-11-27T08:00:00.000Z',
        amountCents: -50_000,
        status: 'settled',
        description: 'Card purchase',
      },
      thresholdCents: 1,
    },
  }));

const range = (n: number, prefix = 't') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

async function outcome(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => 'saved',
    (e: unknown) => e,
  );
}

export function alertLimitsContract(
  name: string,
  open: () => Promise<{ engine: SqlEngine; second: SqlEngine; close(): Promise<void> }>,
): void {
  describe(`the alert store's limits: ${name}`, () => {
    let engine: SqlEngine;
    let second: SqlEngine;
    let close: () => Promise<void>;
    let store: AlertStore;
    let other: AlertStore;
    beforeAll(async () => {
      ({ engine, second, close } = await open());
      store = new AlertStore(engine);
      other = new AlertStore(second);
    }, 60_000);
    afterAll(() => close?.());
    beforeEach(async () => {
      for (const table of ['alert_delivery', 'alert_inbox', 'alert', 'alert_rule']) {
        await engine.query(`DELETE FROM ${table}`);
      }
      await engine.query('DELETE FROM alert_webhook_target');
      await engine.query(
        `INSERT INTO alert_webhook_target (id, name, url, secret, created_by, created_at)
         VALUES ('hook-1', 'Ops', 'https://hooks.example.test/ops', repeat('s', 32), $1, now()),
                ('hook-2', 'Chat', 'https://hooks.example.test/chat', repeat('s', 32), $1, now())`,
        ['admin@example.test'],
      );
    });

    const emailStates = async (recipient: string) => {
      const rows = await engine.query<{ state: string; n: number }>(
        `SELECT state, count(*)::int AS n FROM alert_delivery
          WHERE channel = 'email' AND recipient = $1 GROUP BY state ORDER BY state`,
        [recipient],
      );
      return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
    };

    describe('rules per owner', () => {
      it('keeps at most the limit per person, the team’s counted as one owner, others apart', async () => {
        for (let i = 1; i <= 3; i++)
          await store.createRule(amountRule(i), ANA, at(i), undefined, 3);
        const refused = await outcome(store.createRule(amountRule(9), ANA, at(9), undefined, 3));
        expect(refused).toBeInstanceOf(TooManyAlertRulesError);
        expect((refused as TooManyAlertRulesError).limit).toBe(3);
        // Another person, and the team, have their own room.
        for (let i = 1; i <= 3; i++) {
          await store.createRule(amountRule(i), BO, at(i), undefined, 3);
          await store.createRule(
            amountRule(i, { team: true }),
            'admin@example.test',
            at(i),
            undefined,
            3,
          );
        }
        expect(
          await outcome(store.createRule(amountRule(9, { team: true }), ANA, at(9), undefined, 3)),
        ).toBeInstanceOf(TooManyAlertRulesError);
        // Room again once one is removed; a higher limit counts the same rules.
        const [first] = await store.rulesFor(ANA).then((r) => r.filter((x) => x.ownerEmail));
        await store.deleteRule((first as AlertRule).id, 1);
        expect(await outcome(store.createRule(amountRule(9), ANA, at(9), undefined, 3))).toBe(
          'saved',
        );
        expect(await outcome(store.createRule(amountRule(10), ANA, at(10), undefined, 4))).toBe(
          'saved',
        );
        expect(
          await outcome(store.createRule(amountRule(11), ANA, at(11), undefined, 4)),
        ).toBeInstanceOf(TooManyAlertRulesError);
        expect(await outcome(store.createRule(amountRule(11), ANA, at(11)))).toBe('saved');
      });

      it('of many creations at once for one person from two engines, saves exactly the limit', async () => {
        const results = await Promise.all(
          range(12).map((_, i) =>
            outcome(
              (i % 2 ? other : store).createRule(amountRule(i + 1), ANA, at(1), undefined, 5),
            ),
          ),
        );
        expect(results.filter((r) => r === 'saved')).toHaveLength(5);
        expect(results.filter((r) => r instanceof TooManyAlertRulesError)).toHaveLength(7);
        expect(await engine.query('SELECT id FROM alert_rule')).toHaveLength(5);
      });
    });

    describe('identical rules', () => {
      it('refuses a rule the same as one the owner has, naming it, whatever its name, channels, digest or state', async () => {
        const kept = await store.createRule(
          amountRule(500, { subAccountId: 'sa-1', cardId: 'c-1', name: 'Big' }),
          ANA,
          at(1),
        );
        for (const same of [
          amountRule(500, { subAccountId: 'sa-1', cardId: 'c-1' }),
          amountRule(500, {
            subAccountId: 'sa-1',
            cardId: 'c-1',
            name: 'Another name',
            channels: { inbox: false, email: true },
            digest: true,
            enabled: false,
          }),
        ]) {
          const refused = await outcome(store.createRule(same, 'ANA@example.test', at(2)));
          expect(refused).toBeInstanceOf(IdenticalAlertRuleError);
          expect((refused as IdenticalAlertRuleError).existing).toEqual(kept);
        }
        // Any of what makes a rule the one it is, changed: another rule.
        for (const [what, differs, by] of [
          ['amount', amountRule(501, { subAccountId: 'sa-1', cardId: 'c-1' }), ANA],
          ['sub account', amountRule(500, { subAccountId: 'sa-2', cardId: 'c-1' }), ANA],
          ['no sub account', amountRule(500, { cardId: 'c-1' }), ANA],
          ['card', amountRule(500, { subAccountId: 'sa-1', cardId: 'c-2' }), ANA],
          ['no card', amountRule(500, { subAccountId: 'sa-1' }), ANA],
          [
            'webhook',
            amountRule(500, {
              subAccountId: 'sa-1',
              cardId: 'c-1',
              channels: { inbox: true, email: false, webhookTargetId: 'hook-1' },
            }),
            ANA,
          ],
          ['kind', { ...amountRule(500, { subAccountId: 'sa-1' }), kind: 'balance_below' }, ANA],
          ['owner', amountRule(500, { subAccountId: 'sa-1', cardId: 'c-1' }), BO],
          ['the team', amountRule(500, { subAccountId: 'sa-1', cardId: 'c-1', team: true }), ANA],
        ] as const) {
          expect([what, await outcome(store.createRule(differs, by, at(3)))]).toEqual([
            what,
            'saved',
          ]);
        }
        const shares = [80, 90].map((sharePercent) => ({
          kind: 'utilisation_above',
          name: 'Share',
          sharePercent,
          channels: { inbox: true, email: false },
        }));
        expect(await outcome(store.createRule(shares[0], ANA, at(4)))).toBe('saved');
        expect(await outcome(store.createRule(shares[1], ANA, at(4)))).toBe('saved');
        expect(await outcome(store.createRule(shares[1], ANA, at(4)))).toBeInstanceOf(
          IdenticalAlertRuleError,
        );
        const declines = { kind: 'declined', name: 'D', channels: { inbox: true, email: false } };
        expect(await outcome(store.createRule(declines, ANA, at(5)))).toBe('saved');
        expect(
          await outcome(store.createRule({ ...declines, name: 'E' }, ANA, at(5))),
        ).toBeInstanceOf(IdenticalAlertRuleError);
      });

      it('refuses a change that makes a rule the same as another, and saves a rule as itself', async () => {
        const one = await store.createRule(amountRule(100), ANA, at(1));
        const two = await store.createRule(amountRule(200), ANA, at(2));
        const refused = await outcome(
          store.updateRule(two.id, 1, amountRule(100, { name: 'x' }), ANA, at(3)),
        );
        expect(refused).toBeInstanceOf(IdenticalAlertRuleError);
        expect((refused as IdenticalAlertRuleError).existing?.id).toBe(one.id);
        expect((await store.rule(two.id))?.version).toBe(1);
        const renamed = await store.updateRule(
          two.id,
          1,
          amountRule(200, { name: 'Renamed' }),
          ANA,
          at(3),
        );
        expect(renamed).toMatchObject({ name: 'Renamed', version: 2 });
      });

      it('keeps a duplicate saved before they were refused while it stays the same rule, and holds it once changed', async () => {
        const one = await store.createRule(amountRule(100), ANA, at(1));
        const old = await store.createRule(amountRule(300), ANA, at(2));
        // As the migration leaves a duplicate it found: kept, then made the same as `one`.
        await engine.query(
          'UPDATE alert_rule SET kept_duplicate = true, amount_cents = 100 WHERE id = $1',
          [old.id],
        );
        const renamed = await store.updateRule(
          old.id,
          1,
          amountRule(100, { name: 'Old' }),
          ANA,
          at(3),
        );
        expect(renamed).toMatchObject({ name: 'Old', amountCents: 100, version: 2 });
        const moved = await store.updateRule(old.id, 2, amountRule(150), ANA, at(4));
        expect(moved).toMatchObject({ amountCents: 150 });
        const back = await outcome(store.updateRule(old.id, 3, amountRule(100), ANA, at(5)));
        expect(back).toBeInstanceOf(IdenticalAlertRuleError);
        expect((back as IdenticalAlertRuleError).existing?.id).toBe(one.id);
      });

      it('of identical creations at once from two engines, saves exactly one', async () => {
        const results = await Promise.all(
          range(8).map((_, i) =>
            outcome(
              (i % 2 ? other : store).createRule(amountRule(700, { name: `n${i}` }), ANA, at(1)),
            ),
          ),
        );
        expect(results.filter((r) => r === 'saved')).toHaveLength(1);
        expect(results.filter((r) => r instanceof IdenticalAlertRuleError)).toHaveLength(7);
      });
    });

    describe('emails per recipient and hour', () => {
      it('emails a recipient at most the cap in an hour and folds the rest; webhooks and others are not counted', async () => {
        const mine = await store.createRule(
          amountRule(1, { channels: { inbox: true, email: true, webhookTargetId: 'hook-1' } }),
          ANA,
          at(0),
        );
        const theirs = await store.createRule(amountRule(1), BO, at(0));
        const raised = await store.raise(
          [...alertsOf(mine, range(7)), ...alertsOf(theirs, range(2))],
          { at: at(10), teamRecipients: [], emailsPerHour: 3 },
        );
        expect(raised).toHaveLength(9);
        expect(await emailStates(ANA)).toEqual({ folded: 4, pending: 3 });
        expect(await emailStates(BO)).toEqual({ pending: 2 });
        const hooks = await engine.query(
          "SELECT key FROM alert_delivery WHERE channel = 'webhook' AND state = 'pending'",
        );
        expect(hooks).toHaveLength(7);
        // Within the hour (sent or failed emails count too): folded; an hour on: room again.
        await engine.query(
          "UPDATE alert_delivery SET state = 'sent' WHERE recipient = $1 AND state = 'pending'",
          [ANA],
        );
        await store.raise(alertsOf(mine, ['u1']), {
          at: at(69),
          teamRecipients: [],
          emailsPerHour: 3,
        });
        expect(await emailStates(ANA)).toEqual({ folded: 5, sent: 3 });
        await store.raise(alertsOf(mine, ['v1', 'v2', 'v3', 'v4']), {
          at: at(71),
          teamRecipients: [],
          emailsPerHour: 3,
        });
        expect(await emailStates(ANA)).toEqual({ folded: 6, pending: 3, sent: 3 });
        // The day's folded emails, for the digests.
        const day = [new Date(Date.UTC(2026, 10, 27)), new Date(Date.UTC(2026, 10, 28))] as const;
        expect(await store.deliveries.foldedRecipients(...day)).toEqual([ANA]);
        const folded = await store.deliveries.foldedAlerts(ANA, ...day);
        expect(folded).toHaveLength(6);
        expect(
          folded.map((a) => (a.payload as { transaction: { id: string } }).transaction.id).sort(),
        ).toEqual(['t3', 't4', 't5', 't6', 'u1', 'v4'].sort());
        expect(
          await store.deliveries.foldedRecipients(day[1], new Date(Date.UTC(2026, 10, 29))),
        ).toEqual([]);
      });

      it('counts each recipient of a team rule apart, and is the default of 20 when not given', async () => {
        const team = await store.createRule(
          amountRule(1, { team: true }),
          'admin@example.test',
          at(0),
        );
        await store.raise(alertsOf(team, range(25)), { at: at(10), teamRecipients: [ANA, BO] });
        expect(await emailStates(ANA)).toEqual({ folded: 5, pending: 20 });
        expect(await emailStates(BO)).toEqual({ folded: 5, pending: 20 });
      });

      it('of raises at once from two engines for one recipient, leaves at most the cap pending', async () => {
        const rules = await Promise.all(
          range(6).map((_, i) => store.createRule(amountRule(i + 1), ANA, at(0))),
        );
        await Promise.all(
          rules.map((rule, i) =>
            (i % 2 ? other : store).raise(alertsOf(rule, range(3)), {
              at: at(10),
              teamRecipients: [],
              emailsPerHour: 4,
            }),
          ),
        );
        expect(await emailStates(ANA)).toEqual({ folded: 14, pending: 4 });
      });
    });
  });
}
