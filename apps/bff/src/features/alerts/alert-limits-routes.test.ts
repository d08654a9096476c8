// The limits on alert rules over real HTTP: a person's rule past the cap (409
// `too_many_alert_rules`) and a rule identical to one they have (409 `alert_rule_exists`) are
// refused and audited, and requests sent at once to two replicas on one PostgreSQL save no
// more than the cap and never two identical rules.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase } from '../../test/engines/postgres';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { replicaStores } from '../../test/replica-stores';

const RULES = 4;
const env = {
  sessionSecret: 'b'.repeat(64),
  alertLimits: { rulesPerPerson: RULES, emailsPerHour: 20 },
};

const amountRule = (amountCents: number, extra: object = {}) => ({
  kind: 'amount_above',
  name: `Over ${amountCents}`,
  amountCents,
  channels: { inbox: true, email: false },
  ...extra,
});

const post = (t: TestApp, session: TestSession, body: object) =>
  t.request.post('/api/alerts/rules').set(session.headers()).send(body);

describe('limits on alert rules over HTTP', () => {
  let t: TestApp;
  let finance: TestSession;
  let admin: TestSession;
  beforeAll(async () => {
    t = await startTestApp({ env, sim: { transactions: 20 } });
    [finance, admin] = [await t.signIn('finance'), await t.signIn('admin')];
  });
  afterAll(() => t?.close());
  const auditOf = async (res: { headers: Record<string, string> }) =>
    (await t.audit.list({ limit: 1000 })).items.filter(
      (r) => r.requestId === res.headers['x-request-id'],
    );

  it('refuses a person’s rule past the cap with 409, audited; the team’s rules are counted apart', async () => {
    for (let i = 1; i <= RULES; i++)
      expect((await post(t, finance, amountRule(i))).status).toBe(201);
    const refused = await post(t, finance, amountRule(99));
    expect(refused.status).toBe(409);
    expect(apiErrorBodySchema.parse(refused.body)).toMatchObject({ code: 'too_many_alert_rules' });
    expect(refused.body.detail).toBe(
      `You have ${RULES} alert rules, the most kept. Remove one that is no longer needed before adding another.`,
    );
    expect(await auditOf(refused)).toMatchObject([
      {
        action: 'alertRule.create',
        outcome: 'denied',
        detail: 'too_many_alert_rules',
        after: { name: 'Over 99' },
      },
    ]);
    const team = await post(t, admin, amountRule(1, { team: true }));
    expect(team.status, JSON.stringify(team.body)).toBe(201);
    const rules = await t.request.get('/api/alerts/rules').set(finance.headers());
    expect(rules.body.items).toHaveLength(RULES + 1);
  });

  it('refuses a rule identical to one the person has, naming it, and a change that makes one so', async () => {
    const sub = t.sim.data.subAccounts()[0]?.id ?? '';
    const original = await post(t, admin, amountRule(5_000, { name: 'Large', subAccountId: sub }));
    expect(original.status).toBe(201);
    const again = await post(
      t,
      admin,
      amountRule(5_000, {
        name: 'Large again',
        subAccountId: sub,
        channels: { inbox: false, email: true },
      }),
    );
    expect(again.status).toBe(409);
    expect(apiErrorBodySchema.parse(again.body)).toMatchObject({ code: 'alert_rule_exists' });
    expect(again.body.detail).toContain('the same as “Large”');
    expect(await auditOf(again)).toMatchObject([
      { action: 'alertRule.create', outcome: 'denied', detail: 'alert_rule_exists' },
    ]);
    const other = await post(t, admin, amountRule(6_000, { subAccountId: sub }));
    expect(other.status).toBe(201);
    const changed = await t.request
      .put(`/api/alerts/rules/${other.body.id}`)
      .set(admin.headers())
      .send({ ...amountRule(5_000, { name: 'Renamed', subAccountId: sub }), version: 1 });
    expect(changed.status).toBe(409);
    expect(changed.body).toMatchObject({ code: 'alert_rule_exists' });
    expect(changed.body.detail).toContain('the same as “Large”');
  });
});

describe('limits on alert rules, requests at once to two replicas on one PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    database = await testDatabase();
    const clock = new ManualClock();
    const index = () => replicaStores(database.url, 8);
    a = await startTestApp({ clock, env, sim: { transactions: 20 }, stores: index() });
    b = await startTestApp({ clock, env, upstreamOf: a, stores: index() });
    await Promise.all([a.stores.alerts(), b.stores.alerts()]);
  }, 120_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.stop();
  });

  it('saves exactly the cap of a person’s rules sent at once, and one of identical rules', async () => {
    const sessions = [await a.signIn('finance'), await b.signIn('finance')];
    const apps = [a, b];
    const distinct = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        post(apps[i % 2] as TestApp, sessions[i % 2] as TestSession, amountRule(i + 1)),
      ),
    );
    expect(distinct.map((r) => r.status).sort()).toEqual([
      ...Array(RULES).fill(201),
      ...Array(12 - RULES).fill(409),
    ]);
    expect(distinct.filter((r) => r.status === 409).map((r) => r.body.code)).toEqual(
      Array(12 - RULES).fill('too_many_alert_rules'),
    );

    const admins = [await a.signIn('admin'), await b.signIn('admin')];
    const identical = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(apps[i % 2] as TestApp, admins[i % 2] as TestSession, {
          kind: 'declined',
          name: `Declines ${i}`,
          channels: { inbox: true, email: false },
        }),
      ),
    );
    expect(identical.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect(identical.filter((r) => r.status === 409).map((r) => r.body.code)).toEqual(
      Array(5).fill('alert_rule_exists'),
    );
    const saved = await a.request.get('/api/alerts/rules').set(admins[0]?.headers() ?? {});
    expect(saved.body.items.filter((r: { kind: string }) => r.kind === 'declined')).toHaveLength(1);
  }, 60_000);
});
