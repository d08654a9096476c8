// Alert rules and the inbox over real HTTP (the app on a loopback port, the simulator behind it):
// each endpoint's answer, its refusals (400 with the reason, 403, 404, 409 with the rule as it
// is) and their audit records, and that a person only ever reads or marks their own inbox.
import {
  alertRuleListSchema,
  alertRuleSchema,
  inboxPageSchema,
  markReadResultSchema,
  unreadCountSchema,
} from '@card-console/shared/api/alerts';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { testPan } from '../../test/test-pan';
import type { AlertToRaise } from './alert-evaluator';
import { tamperedInboxCursors } from './alert-store.contract';

let t: TestApp;
let admin: TestSession;
let finance: TestSession;
/** A webhook target admins may send to. */
let whOps: string;

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 400, subAccounts: 5 } });
  [admin, finance] = [await t.signIn('admin'), await t.signIn('finance')];
  const targets = (await t.stores.alerts()).webhookTargets;
  whOps = (
    await targets.create(
      { name: 'Ops', url: 'https://hooks.example.test/ops' },
      t.credentials.admin.email,
      new Date(t.clock.now()),
    )
  ).id;
});
afterAll(async () => t.close());

/** The simulator's sub accounts, one a test (a person's rules alike but for their scope are one). */
const sub = (i: number) => {
  const id = t.sim.data.subAccounts()[i]?.id;
  if (!id) throw new Error(`the simulator has no sub account ${i}`);
  return id;
};

const inboxOnly = { inbox: true, email: false };
const declined = (name: string, extra: object = {}) => ({
  kind: 'declined',
  name,
  channels: inboxOnly,
  ...extra,
});

const create = (session: TestSession, body: object) =>
  t.request.post('/api/alerts/rules').set(session.headers()).send(body);
const put = (session: TestSession, id: string, body: object) =>
  t.request
    .put(`/api/alerts/rules/${encodeURIComponent(id)}`)
    .set(session.headers())
    .send(body);
const remove = (session: TestSession, id: string, version?: number | string) =>
  t.request
    .delete(
      `/api/alerts/rules/${encodeURIComponent(id)}${version === undefined ? '' : `?version=${version}`}`,
    )
    .set(session.headers());
const rulesOf = async (session: TestSession) => {
  const res = await t.request.get('/api/alerts/rules').set(session.headers());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return alertRuleListSchema.parse(res.body).items;
};
const problem = (body: unknown) => apiErrorBodySchema.parse(body);

async function auditFor(requestId: string | undefined) {
  return (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId);
}

async function created(session: TestSession, body: object) {
  const res = await create(session, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return alertRuleSchema.parse(res.body);
}

describe('alert rules over HTTP', () => {
  it('a person adds, reads, changes and removes their own rule, each step audited', async () => {
    const res = await create(finance, declined('  Declines on travel  ', { subAccountId: sub(0) }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const rule = alertRuleSchema.parse(res.body);
    expect(res.body).toMatchObject({
      kind: 'declined',
      name: 'Declines on travel',
      subAccountId: sub(0),
      channels: { inbox: true, email: false, webhookTargetId: null },
      digest: false,
      enabled: true,
      team: false,
      version: 1,
    });
    // Who owns or wrote a rule is the audit's business, not the answer's.
    expect(res.body).not.toHaveProperty('ownerEmail');
    expect(res.body).not.toHaveProperty('createdBy');
    expect(await rulesOf(finance)).toContainEqual(rule);

    const [createdRecord] = await auditFor(res.headers['x-request-id']);
    expect(createdRecord).toMatchObject({
      action: 'alertRule.create',
      outcome: 'success',
      actor: t.credentials.finance.email,
      target: rule.id,
      after: {
        name: 'Declines on travel',
        rule: `declined · sub account ${sub(0)} · to inbox · on · own`,
      },
    });

    const changed = await put(finance, rule.id, {
      kind: 'amount_above',
      name: 'Large spend',
      amountCents: 250_000,
      channels: { inbox: true, email: true },
      version: 1,
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({
      id: rule.id,
      kind: 'amount_above',
      amountCents: 250_000,
      channels: { inbox: true, email: true, webhookTargetId: null },
      version: 2,
    });
    expect(changed.body).not.toHaveProperty('subAccountId');
    const [updatedRecord] = await auditFor(changed.headers['x-request-id']);
    expect(updatedRecord).toMatchObject({
      action: 'alertRule.update',
      outcome: 'success',
      before: { name: 'Declines on travel' },
      after: {
        name: 'Large spend',
        rule: 'amount_above · 250000 cents · to inbox, email · on · own',
      },
    });

    const gone = await remove(finance, rule.id, 2);
    expect(gone.status, JSON.stringify(gone.body)).toBe(204);
    expect((await rulesOf(finance)).map((r) => r.id)).not.toContain(rule.id);
    const [deletedRecord] = await auditFor(gone.headers['x-request-id']);
    expect(deletedRecord).toMatchObject({
      action: 'alertRule.delete',
      outcome: 'success',
      target: rule.id,
      before: { name: 'Large spend' },
    });
  });

  it('bad input is a 400 that says what is wrong, and nothing is saved', async () => {
    const before = (await rulesOf(finance)).length;
    const cases: [object, string][] = [
      [declined('x', { kind: 'weather' }), 'kind must be one of declined, amount_above'],
      [
        declined('x', { kind: 'amount_above' }),
        'amountCents: amountCents must be a number of cents',
      ],
      [
        declined('x', { kind: 'amount_above', amountCents: 10.5 }),
        'amountCents: amountCents must be a whole number of cents',
      ],
      [
        declined('x', { kind: 'utilisation_above', sharePercent: 120 }),
        'sharePercent: sharePercent must be from 1 to 100',
      ],
      [declined('   '), 'name: name must not be empty'],
      [declined(`card ${testPan(1)}`), 'name: name must not hold a card number'],
      [
        declined('x', { channels: { inbox: false, email: false } }),
        'channels: choose at least one channel: inbox, email or a webhook',
      ],
      [declined('x', { digest: true }), 'digest: a daily digest is sent by email: turn email on'],
      [declined('x', { colour: 'red' }), 'colour'],
    ];
    for (const [body, message] of cases) {
      const res = await create(finance, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(problem(res.body)).toMatchObject({ code: 'invalid_body' });
      expect(res.body.detail).toContain(message);
    }
    expect(await rulesOf(finance)).toHaveLength(before);

    const rule = await created(finance, declined('Versioned'));
    const noVersion = await put(finance, rule.id, declined('Versioned'));
    expect(noVersion.status).toBe(400);
    expect(noVersion.body.detail).toContain(
      'version: version must be the rule version you changed',
    );
    const deleteWithout = await remove(finance, rule.id);
    expect(deleteWithout.status).toBe(400);
    expect(problem(deleteWithout.body)).toMatchObject({ code: 'invalid_query' });
    expect(deleteWithout.body.detail).toContain('version is required');
    const deleteBad = await remove(finance, rule.id, 'one');
    expect(deleteBad.status).toBe(400);
  });

  it('a rule whose webhook target is removed between its check and its save: 400, nothing saved, recorded', async () => {
    // Another admin's removal, on another replica, lands after the target was checked: the
    // database's foreign key refuses the rule (SQLSTATE 23503), as the store hands it on.
    const alerts = await t.stores.alerts();
    const creating = alerts.createRule;
    alerts.createRule = async () => {
      throw Object.assign(new Error('violates foreign key constraint'), { code: '23503' });
    };
    try {
      const res = await create(
        admin,
        declined('Gone hook', { channels: { inbox: false, email: false, webhookTargetId: whOps } }),
      );
      expect(res.status).toBe(400);
      expect(res.body.detail).toContain('there is no such webhook target');
      expect(await auditFor(res.headers['x-request-id'])).toMatchObject([
        {
          action: 'alertRule.create',
          outcome: 'failed',
          detail: 'invalid_body',
          after: { name: 'Gone hook' },
        },
      ]);
    } finally {
      alerts.createRule = creating;
    }
    expect((await rulesOf(admin)).map((r) => r.name)).not.toContain('Gone hook');
  });

  it('finance may not set a team rule or a webhook (403, audited as denied); an admin may', async () => {
    const team = await create(finance, declined('Team declines', { team: true }));
    expect(team.status).toBe(403);
    expect(problem(team.body)).toMatchObject({ code: 'forbidden' });
    expect(team.body.detail).toContain('Only admins set team rules');
    const [teamRecord] = await auditFor(team.headers['x-request-id']);
    expect(teamRecord).toMatchObject({
      action: 'alertRule.create',
      outcome: 'denied',
      detail: 'team_rules_are_for_admins',
      after: { name: 'Team declines' },
    });

    const hook = await create(
      finance,
      declined('Hooked', { channels: { inbox: false, email: false, webhookTargetId: whOps } }),
    );
    expect(hook.status).toBe(403);
    expect(hook.body.detail).toContain('Only admins send alerts to a webhook');
    expect((await rulesOf(finance)).map((r) => r.name)).not.toContain('Hooked');

    const adminTeam = await created(
      admin,
      declined('Team webhook', {
        team: true,
        channels: { inbox: true, email: false, webhookTargetId: whOps },
      }),
    );
    expect(adminTeam).toMatchObject({ team: true, channels: { webhookTargetId: whOps } });
    // Everyone sees the team's rules; only admins change them.
    expect((await rulesOf(finance)).map((r) => r.id)).toContain(adminTeam.id);
    const edit = await put(finance, adminTeam.id, {
      ...declined('Mine now', { team: true }),
      version: 1,
    });
    expect(edit.status).toBe(403);
    const drop = await remove(finance, adminTeam.id, 1);
    expect(drop.status).toBe(403);
    expect(drop.body.detail).toContain('not yours');
  });

  it('a control character (a NUL, which the database refuses) in any text of a rule is a 400 naming the field, never a 500', async () => {
    const before = (await rulesOf(finance)).length;
    const cases: [object, string][] = [
      [declined('a\u0000b'), 'name: name must not contain control characters'],
      [declined('a\u0007b'), 'name: name must not contain control characters'],
      [declined('x', { cardId: 'a\u0000' }), 'cardId: cardId must not contain control characters'],
      [
        declined('x', { subAccountId: 'sa\u0000' }),
        'subAccountId: subAccountId must not contain control characters',
      ],
      [
        declined('x', { channels: { inbox: true, email: false, webhookTargetId: 'w\u0000' } }),
        'channels.webhookTargetId: channels.webhookTargetId must not contain control characters',
      ],
      [declined('x', { cardId: '..' }), 'cardId: cardId '],
      [declined('\u200b'), 'name: name must contain a visible character'],
    ];
    for (const [body, message] of cases) {
      const res = await create(finance, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(problem(res.body)).toMatchObject({ code: 'invalid_body' });
      expect(res.body.detail, JSON.stringify(body)).toContain(message);
    }
    expect(await rulesOf(finance)).toHaveLength(before);

    const rule = await created(finance, declined('Kept', { subAccountId: sub(1) }));
    const changed = await put(
      finance,
      rule.id,
      declined('a\u0000b', { subAccountId: sub(1), version: rule.version }),
    );
    expect(changed.status).toBe(400);
    expect(changed.body.detail).toContain('name: name must not contain control characters');
    expect((await rulesOf(finance)).find((r) => r.id === rule.id)?.name).toBe('Kept');
  });

  it("a rule limited to a card or sub account the card service does not have is a 400 naming it (it would never fire); a kept rule's scope is not asked again", async () => {
    const before = (await rulesOf(finance)).length;
    const card = t.sim.data.cards()[0]?.id;
    if (!card) throw new Error('no card');
    const cases: [object, string][] = [
      [declined('x', { cardId: 'card_not_there' }), 'cardId: the card service has no such card'],
      [
        declined('x', { subAccountId: 'sa_not_there' }),
        'subAccountId: the card service has no such sub account',
      ],
      // Both named, the card real: the sub account is still asked.
      [
        declined('x', { cardId: card, subAccountId: 'sa_not_there' }),
        'subAccountId: the card service has no such sub account',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await create(finance, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(problem(res.body)).toMatchObject({ code: 'invalid_body' });
      expect(res.body.detail).toContain(message);
      const records = await auditFor(res.headers['x-request-id']);
      expect(records.filter((r) => r.outcome === 'success')).toEqual([]);
    }
    expect(await rulesOf(finance)).toHaveLength(before);

    // A card service that cannot answer is its failure (5xx), never "no such sub account".
    t.sim.faults.enqueue({ kind: 'status', status: 500, route: 'GET /sub-account' });
    const down = await create(finance, declined('x', { subAccountId: sub(1) }));
    expect(down.status, JSON.stringify(down.body)).toBeGreaterThanOrEqual(500);
    expect(problem(down.body).detail).not.toContain('no such');
    expect(await rulesOf(finance)).toHaveLength(before);

    // A real card and sub account: kept.
    const scoped = await created(
      finance,
      declined('On one card', { cardId: card, subAccountId: sub(1) }),
    );
    expect(scoped).toMatchObject({ cardId: card, subAccountId: sub(1) });
    // Changing it to another card the service does not have: refused, the rule as it was.
    const moved = await put(finance, scoped.id, {
      ...declined('On one card', { cardId: 'card_not_there', subAccountId: sub(1) }),
      version: scoped.version,
    });
    expect(moved.status).toBe(400);
    expect(moved.body.detail).toContain('cardId: the card service has no such card');

    // A rule kept from before whose sub account the service no longer lists (written to the
    // store as it stood): renaming it does not ask again of the scope it keeps.
    const old = await (await t.stores.alerts()).createRule(
      declined('From before', { subAccountId: 'sa_gone' }),
      t.credentials.finance.email,
      new Date(t.clock.now()),
    );
    const renamed = await put(finance, old.id, {
      ...declined('Renamed', { subAccountId: 'sa_gone' }),
      version: old.version,
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', subAccountId: 'sa_gone', version: 2 });
  });

  it("a person cannot change or remove someone else's rule (403), nor see it", async () => {
    const adminsOwn = await created(admin, declined('Admin only'));
    const financeOwn = await created(finance, declined('Finance only', { subAccountId: sub(2) }));
    expect((await rulesOf(finance)).map((r) => r.id)).not.toContain(adminsOwn.id);
    expect((await rulesOf(admin)).map((r) => r.id)).not.toContain(financeOwn.id);

    const edit = await put(finance, adminsOwn.id, { ...declined('Taken'), version: 1 });
    expect(edit.status).toBe(403);
    expect(problem(edit.body)).toMatchObject({ code: 'forbidden' });
    const [record] = await auditFor(edit.headers['x-request-id']);
    expect(record).toMatchObject({
      action: 'alertRule.update',
      outcome: 'denied',
      actor: t.credentials.finance.email,
      target: adminsOwn.id,
      detail: 'not_yours',
      before: { name: 'Admin only' },
      after: { name: 'Taken' },
    });
    // Being an admin does not make another person's own rule theirs.
    expect((await remove(admin, financeOwn.id, 1)).status).toBe(403);
    // A person's rule stays theirs: it cannot be turned into a team rule.
    const toTeam = await put(admin, adminsOwn.id, {
      ...declined('Now team', { team: true }),
      version: 1,
    });
    expect(toTeam.status).toBe(403);
    expect((await rulesOf(admin)).find((r) => r.id === adminsOwn.id)).toMatchObject({
      name: 'Admin only',
      version: 1,
    });
  });

  it('a change or removal made on an old version is a 409 with the rule as it is', async () => {
    // Scoped: a rule the same as another of the person's is refused (alert-limits tests).
    const scope = { subAccountId: sub(3) };
    const rule = await created(finance, declined('Race', scope));
    const first = await put(finance, rule.id, { ...declined('First', scope), version: 1 });
    expect(first.status).toBe(200);
    const stale = await put(finance, rule.id, { ...declined('Second', scope), version: 1 });
    expect(stale.status).toBe(409);
    const body = problem(stale.body);
    expect(body).toMatchObject({
      code: 'alert_rule_changed',
      current: { id: rule.id, name: 'First', version: 2 },
    });
    const [record] = await auditFor(stale.headers['x-request-id']);
    expect(record).toMatchObject({
      action: 'alertRule.update',
      outcome: 'failed',
      detail: 'alert_rule_changed',
      before: { name: 'First' },
      after: { name: 'Second' },
    });
    const staleDelete = await remove(finance, rule.id, 1);
    expect(staleDelete.status).toBe(409);
    expect(staleDelete.body).toMatchObject({ current: { version: 2 } });
    expect((await rulesOf(finance)).find((r) => r.id === rule.id)).toMatchObject({ name: 'First' });
  });

  it('an unknown rule is a 404', async () => {
    const edit = await put(finance, 'no-such-rule', { ...declined('Nothing'), version: 1 });
    expect(edit.status).toBe(404);
    expect(problem(edit.body)).toMatchObject({ code: 'not_found' });
    expect((await remove(admin, 'no-such-rule', 1)).status).toBe(404);
  });
});

describe('the inbox over HTTP', () => {
  let raisedAt = Date.parse('2026-11-20T09:00:00Z');
  /** Raises one declined alert per transaction id under `ruleId`, a minute apart. */
  async function raise(ruleId: string, ids: string[], teamRecipients: string[] = []) {
    const store = await t.stores.alerts();
    const raised = [];
    for (const id of ids) {
      const alert: AlertToRaise = {
        ruleId,
        idempotencyKey: `${ruleId}:${id}`,
        payload: {
          kind: 'declined',
          ruleName: 'Declines',
          subAccount: { id: 'sa_1', name: 'Travel' },
          card: { id: 'card_1', name: 'Ops card', lastFour: '4242' },
          transaction: {
            id,
            at: new Date(raisedAt).toISOString(),
            amountCents: -1234,
            status: 'declined',
            description: 'Hotel',
            merchant: 'Grand Hotel',
            declineReason: 'insufficient funds',
          },
        },
      };
      raisedAt += 60_000;
      raised.push(...(await store.raise([alert], { at: new Date(raisedAt), teamRecipients })));
    }
    return raised.map((a) => a.id);
  }
  const inbox = (session: TestSession, query = '') =>
    t.request.get(`/api/alerts/inbox${query}`).set(session.headers());
  const unread = async (session: TestSession) => {
    const res = await t.request.get('/api/alerts/inbox/unread-count').set(session.headers());
    expect(res.status).toBe(200);
    return unreadCountSchema.parse(res.body).unread;
  };
  const markRead = (session: TestSession, body: object) =>
    t.request.post('/api/alerts/inbox/read').set(session.headers()).send(body);

  it('pages newest first, counts unread, marks read by id or all; each person sees only their own', async () => {
    const financeRule = await created(finance, declined('Declines', { subAccountId: sub(4) }));
    const adminRule = await created(admin, declined('Declines', { subAccountId: sub(4) }));
    const mine = await raise(financeRule.id, ['tx_a', 'tx_b', 'tx_c']);
    const [theirs] = await raise(adminRule.id, ['tx_d']);

    const first = await inbox(finance, '?limit=2');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const page1 = inboxPageSchema.parse(first.body);
    expect(page1.items.map((i) => i.id)).toEqual([mine[2], mine[1]]);
    expect(page1.items[0]).toMatchObject({
      kind: 'declined',
      ruleId: financeRule.id,
      ruleName: 'Declines',
      readAt: null,
      subAccountId: 'sa_1',
      subAccountName: 'Travel',
      cardId: 'card_1',
      cardName: 'Ops card',
      last4: '4242',
      transactionId: 'tx_c',
      amountCents: -1234,
      status: 'declined',
      merchant: 'Grand Hotel',
      declineReason: 'insufficient funds',
    });
    expect(page1.next).toBeDefined();
    const second = inboxPageSchema.parse(
      (await inbox(finance, `?limit=2&cursor=${encodeURIComponent(page1.next ?? '')}`)).body,
    );
    expect(second.items.map((i) => i.id)).toEqual([mine[0]]);
    expect(second.next).toBeUndefined();

    expect(await unread(finance)).toBe(3);
    expect(await unread(admin)).toBe(1);
    const adminInbox = inboxPageSchema.parse((await inbox(admin)).body);
    expect(adminInbox.items.map((i) => i.id)).toEqual([theirs]);

    const one = await markRead(finance, { ids: [mine[1]] });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(markReadResultSchema.parse(one.body)).toEqual({ marked: 1, unread: 2 });
    const unreadOnly = inboxPageSchema.parse((await inbox(finance, '?unread=1')).body);
    expect(unreadOnly.items.map((i) => i.id)).toEqual([mine[2], mine[0]]);
    const all = inboxPageSchema.parse((await inbox(finance)).body);
    expect(all.items.find((i) => i.id === mine[1])?.readAt).toEqual(expect.any(String));

    // Another person's alert id marks nothing, in either inbox.
    const notMine = await markRead(finance, { ids: [theirs] });
    expect(markReadResultSchema.parse(notMine.body)).toEqual({ marked: 0, unread: 2 });
    expect(await unread(admin)).toBe(1);

    const everything = await markRead(finance, { all: true });
    expect(markReadResultSchema.parse(everything.body)).toEqual({ marked: 2, unread: 0 });
    expect(await unread(finance)).toBe(0);
    expect(await unread(admin)).toBe(1);
  });

  it("a team rule's alert reaches each recipient's own inbox, read separately", async () => {
    const team = await created(admin, declined('Team declines', { team: true }));
    const [id] = await raise(
      team.id,
      ['tx_team'],
      [t.credentials.finance.email, t.credentials.admin.email],
    );
    const before = await unread(admin);
    await markRead(finance, { ids: [id] });
    expect(await unread(admin)).toBe(before);
    const adminItem = inboxPageSchema
      .parse((await inbox(admin, '?unread=1')).body)
      .items.find((i) => i.id === id);
    expect(adminItem).toMatchObject({ ruleName: 'Declines', readAt: null });
  });

  it('bad paging, any tampered cursor or a bad mark-read body is a 400 with the reason', async () => {
    const cases: [string, string][] = [
      ['?limit=0', 'limit must be a whole number from 1 to 100'],
      ['?limit=101', 'limit must be a whole number from 1 to 100'],
      ['?unread=yes', 'unread must be 1 or 0'],
      ['?cursor=bm90LWEtY3Vyc29y', 'cursor: not a position in your inbox'],
      ['?page=2', 'page'],
    ];
    for (const [query, message] of cases) {
      const res = await inbox(finance, query);
      expect(res.status, query).toBe(400);
      expect(problem(res.body)).toMatchObject({ code: 'invalid_query' });
      expect(res.body.detail).toContain(message);
    }
    for (const [what, cursor] of tamperedInboxCursors) {
      const res = await inbox(finance, `?cursor=${encodeURIComponent(cursor)}`);
      expect([what, res.status, res.body.code]).toEqual([what, 400, 'invalid_query']);
      expect(res.body.detail, what).toMatch(/^cursor: /);
    }
    for (const body of [{}, { ids: [] }, { all: false }, { ids: ['a'], all: true }]) {
      const res = await markRead(finance, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(problem(res.body)).toMatchObject({ code: 'invalid_body' });
    }
    // A NUL (which the database refuses) or another control character in an id: a 400, not a 500.
    for (const ids of [['a\u0000b'], ['ok', '\u0000'], ['a\u001fb']]) {
      const res = await markRead(finance, { ids });
      expect(res.status, JSON.stringify(ids)).toBe(400);
      expect(problem(res.body)).toMatchObject({ code: 'invalid_body' });
      expect(res.body.detail, JSON.stringify(ids)).toContain('must not contain control characters');
    }
  });
});
