// "Send a test alert" over real HTTP (the app on a loopback port): a person tests their own
// rule, an admin the team's, each test reaching the sender alone through the rule's channels;
// someone else's rule is a 403 and an unknown one a 404, both sending nothing; every test and
// refusal is audited; past the per-person limit a test is a 429 with Retry-After.
import {
  alertRuleSchema,
  alertTestResultSchema,
  inboxPageSchema,
} from '@card-console/shared/api/alerts';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { testAlertKey } from './alert-test';
import { deliveryKey } from './delivery-plan';

let t: TestApp;
let admin: TestSession;
let finance: TestSession;
let whOps: string;

beforeAll(async () => {
  t = await startTestApp({
    sim: { transactions: 100 },
    env: { rateLimits: { alertTestsPerMinute: 4 } },
  });
  [admin, finance] = [await t.signIn('admin'), await t.signIn('finance')];
  whOps = (
    await (
      await t.stores.alerts()
    ).webhookTargets.create(
      { name: 'Ops', url: 'https://hooks.example.test/ops' },
      t.credentials.admin.email,
      new Date(t.clock.now()),
    )
  ).id;
});
afterAll(async () => t.close());

async function rule(session: TestSession, body: object) {
  const res = await t.request.post('/api/alerts/rules').set(session.headers()).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return alertRuleSchema.parse(res.body);
}
const sendTest = (session: TestSession, id: string) =>
  t.request.post(`/api/alerts/rules/${encodeURIComponent(id)}/test`).set(session.headers());
const inbox = async (session: TestSession) => {
  const res = await t.request.get('/api/alerts/inbox').set(session.headers());
  expect(res.status).toBe(200);
  return inboxPageSchema.parse(res.body).items;
};
const auditFor = async (requestId: string | undefined) =>
  (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId);
const delivery = async (
  alertId: string,
  ruleId: string,
  channel: 'email' | 'webhook',
  to: string,
) =>
  (await t.stores.alerts()).deliveries.get(deliveryKey(testAlertKey(ruleId, alertId), channel, to));

describe('sending a test alert', () => {
  it("reaches the person's inbox and email as an example marked a test, audited; an off rule's too", async () => {
    const mine = await rule(finance, {
      kind: 'amount_above',
      name: 'Large spend',
      amountCents: 50_000,
      channels: { inbox: true, email: true },
      enabled: false,
    });
    const res = await sendTest(finance, mine.id);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const sent = alertTestResultSchema.parse(res.body);
    const email = t.credentials.finance.email.toLowerCase();
    expect(sent).toEqual({ alertId: sent.alertId, inbox: true, email, webhook: null });

    const [first] = await inbox(finance);
    expect(first).toMatchObject({
      id: sent.alertId,
      ruleId: mine.id,
      test: true,
      kind: 'amount_above',
      thresholdCents: 50_000,
      amountCents: 50_100,
      readAt: null,
    });
    expect(await delivery(sent.alertId, mine.id, 'email', email)).toMatchObject({
      channel: 'email',
      recipient: email,
      payload: { test: true },
    });
    expect(await auditFor(res.headers['x-request-id'])).toEqual([
      expect.objectContaining({
        action: 'alertRule.test',
        outcome: 'success',
        target: mine.id,
        after: { name: 'Large spend', rule: `test to inbox, email ${email}` },
      }),
    ]);
  });

  it("an admin's test of a team rule reaches the admin alone, and its webhook", async () => {
    const team = await rule(admin, {
      kind: 'declined',
      name: 'Team declines',
      team: true,
      channels: { inbox: true, email: false, webhookTargetId: whOps },
    });
    const before = (await inbox(finance)).length;
    const res = await sendTest(admin, team.id);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const sent = alertTestResultSchema.parse(res.body);
    expect(sent).toMatchObject({ inbox: true, email: null, webhook: 'Ops' });
    expect((await inbox(admin))[0]).toMatchObject({
      id: sent.alertId,
      test: true,
      kind: 'declined',
    });
    expect(await inbox(finance)).toHaveLength(before);
    expect(await delivery(sent.alertId, team.id, 'webhook', whOps)).toMatchObject({
      channel: 'webhook',
    });
  });

  it("someone else's rule is a 403 and an unknown one a 404, sending nothing; the 403 is audited", async () => {
    const team = await rule(admin, {
      kind: 'declined',
      name: 'Team declines 2',
      team: true,
      channels: { inbox: true, email: false },
    });
    const adminOwn = await rule(admin, {
      kind: 'declined',
      name: 'Admin own',
      channels: { inbox: true, email: false },
    });
    const before = (await inbox(finance)).length;
    for (const id of [team.id, adminOwn.id]) {
      const res = await sendTest(finance, id);
      expect(res.status).toBe(403);
      expect(apiErrorBodySchema.parse(res.body).code).toBe('forbidden');
      expect(await auditFor(res.headers['x-request-id'])).toEqual([
        expect.objectContaining({ action: 'alertRule.test', outcome: 'denied', target: id }),
      ]);
    }
    const missing = await sendTest(finance, 'no-such-rule');
    expect(missing.status).toBe(404);
    expect(apiErrorBodySchema.parse(missing.body).code).toBe('not_found');
    expect(await inbox(finance)).toHaveLength(before);
  });

  it('past the per-person limit a test is a 429 with Retry-After, recorded; others may still test', async () => {
    const mine = await rule(admin, {
      kind: 'balance_below',
      name: 'Low balance',
      amountCents: 10_000,
      channels: { inbox: true, email: false },
    });
    // The admin sent one test above, out of four a minute.
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await sendTest(admin, mine.id));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 429]);
    const refused = answers[3];
    expect(refused?.headers['retry-after']).toMatch(/^\d+$/);
    expect(apiErrorBodySchema.parse(refused?.body)).toMatchObject({
      code: 'rate_limited',
      detail: 'Too many test alerts; wait a minute.',
    });
    expect(await auditFor(refused?.headers['x-request-id'])).toEqual([
      expect.objectContaining({
        action: 'alertRule.test',
        outcome: 'denied',
        target: mine.id,
        detail: 'rate_limited',
      }),
    ]);
  });
});
