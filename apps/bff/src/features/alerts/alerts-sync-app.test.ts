// The app as wired: a read of the index starts its sync, the sync raises alerts, and the inbox
// endpoints show them, to the rule's owner only, or to every person the users know for a team
// rule. A rule saved over HTTP now is newer than every transaction the simulator has, so it
// raises nothing; a rule older than the newest decline is saved straight into the store.
import { inboxPageSchema, unreadCountSchema } from '@card-console/shared/api/alerts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledIndexList } from '../../test/settled-index';

let t: TestApp;
let admin: TestSession;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 400 } });
  [admin, finance] = [await t.signIn('admin'), await t.signIn('finance')];
});
afterAll(async () => t.close());

const inbox = async (session: TestSession) => {
  const res = await t.request.get('/api/alerts/inbox').set(session.headers());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return inboxPageSchema.parse(res.body).items;
};
const unread = async (session: TestSession) =>
  unreadCountSchema.parse(
    (await t.request.get('/api/alerts/inbox/unread-count').set(session.headers())).body,
  ).unread;

describe('alerts raised by the app’s index sync', () => {
  it('reach the owner’s inbox (a team rule’s, everyone’s), once, and a rule saved now raises nothing for older declines', async () => {
    // The newest decline of all sub accounts.
    const declines = t.sim.data
      .subAccounts()
      .flatMap((s) =>
        t.sim.data
          .transactions(s.id)
          .filter((tx) => tx.status === 'declined')
          .map((tx) => ({ ...tx, subAccountId: s.id })),
      )
      .sort((a, b) => Date.parse(b.date) - Date.parse(a.date));
    const newest = declines[0];
    if (!newest) throw new Error('the simulator has no declined transaction');
    const before = new Date(Date.parse(newest.date) - 1);
    // Only the newest decline is after `before` (declines at the very same time aside).
    const expected = declines
      .filter((d) => Date.parse(d.date) >= before.getTime())
      .map((d) => d.id);

    const store = await t.stores.alerts();
    const mine = await store.createRule(
      { kind: 'declined', name: 'My declines', channels: { inbox: true, email: false } },
      t.credentials.finance.email,
      before,
    );
    const team = await store.createRule(
      {
        kind: 'declined',
        name: 'Team declines',
        channels: { inbox: true, email: false },
        team: true,
      },
      t.credentials.admin.email,
      before,
    );
    const now = await t.request
      .post('/api/alerts/rules')
      .set(finance.headers())
      // Narrower than "My declines" (the same rule is refused), still over the newest decline.
      .send({
        kind: 'declined',
        name: 'From now on',
        subAccountId: newest.subAccountId,
        channels: { inbox: true, email: false },
      });
    expect(now.status, JSON.stringify(now.body)).toBe(201);

    await settledIndexList(t, finance);

    const financeItems = await inbox(finance);
    expect(
      financeItems
        .filter((i) => i.ruleId === mine.id)
        .map((i) => i.kind === 'declined' && i.transactionId),
    ).toEqual(expected);
    expect(financeItems.filter((i) => i.ruleId === team.id)).toHaveLength(expected.length);
    expect(financeItems.filter((i) => i.ruleId === now.body.id)).toEqual([]);
    expect(financeItems[0]).toMatchObject({
      subAccountId: newest.subAccountId,
      status: 'declined',
    });
    const adminItems = await inbox(admin);
    expect(adminItems.map((i) => i.ruleId)).toEqual(expected.map(() => team.id));
    expect(await unread(finance)).toBe(2 * expected.length);

    // A refresh walks the open days (the newest decline's among them) again: nothing is raised twice.
    t.clock.advance(10_000);
    await t.request.get('/api/index/transactions?refresh=1').set(finance.headers());
    await settledIndexList(t, finance);
    expect(await unread(finance)).toBe(2 * expected.length);
    expect(await unread(admin)).toBe(expected.length);
  }, 120_000);
});
