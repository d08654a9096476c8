// Alerts come though nobody reads the index: while a rule is on, the app asks for the open days
// to be read again in the background (`keepOpenDaysFresh`, every ALERT_REFRESH_SECONDS), so a
// decline the card service lists after the index's last read raises its alert with no request
// to the index at all. With no rule on, the background reads nothing. The app, the simulator
// (over HTTP) and the embedded engine as wired; the card service and the app share one clock,
// moved by the test, while the refresh ticks on real time.
import { unreadCountSchema } from '@card-console/shared/api/alerts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { ManualClock } from '../../test/manual-clock';
import { settledIndexList } from '../../test/settled-index';

const TICK_MS = 100;
const clock = new ManualClock();
let t: TestApp;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({
    clock,
    sim: { transactions: 300, now: () => clock.now() },
    openDaysRefreshMs: TICK_MS,
  });
  finance = await t.signIn('finance');
  await settledIndexList(t, finance);
}, 120_000);
afterAll(async () => t.close());

const unread = async () =>
  unreadCountSchema.parse(
    (await t.request.get('/api/alerts/inbox/unread-count').set(finance.headers())).body,
  ).unread;
const pagesAsked = () => t.sim.stats.count('GET /transaction');
/**
 * Requests the app answered under /api/index/ (a read of the index starts its syncs); the
 * captured URL is the one the app's router left (`/index/…`).
 */
const indexReads = () => t.responses.filter((r) => /^(\/api)?\/index\//.test(r.url)).length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the open days read again in the background', () => {
  it('read nothing while no alert rule is on, however old the open days are', async () => {
    expect(indexReads()).toBeGreaterThan(0);
    const before = pagesAsked();
    // The open days were read longer ago than the index's refresh age: due for a reader.
    clock.advance(5 * 60_000);
    await sleep(20 * TICK_MS);
    expect(pagesAsked()).toBe(before);
  });

  it('with a "declined" rule on, bring a decline listed after the last read to the inbox, with no read of the index', async () => {
    const readsBefore = indexReads();
    const before = pagesAsked();
    const rule = await t.request
      .post('/api/alerts/rules')
      .set(finance.headers())
      .send({ kind: 'declined', name: 'Declines', channels: { inbox: true, email: false } });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const [sub] = t.sim.data.subAccounts();
    const card = t.sim.data.transactions(sub?.id ?? '').find((tx) => tx.cardId)?.cardId;
    if (!sub || !card) throw new Error('the simulator has no card transaction');
    clock.advance(1_000);
    const declined = t.sim.testing.addTransaction({
      subAccountId: sub.id,
      cardId: card,
      amountCents: -4_321,
      status: 'declined',
      declineReason: 'Card frozen by an admin',
      description: 'Blue Taxi Co',
      merchantDescription: 'BLUE TAXI CO NEW YORK NY',
      categoryCode: '4121',
    });
    // The open days were read over the refresh age ago (the test before moved the clock on):
    // the next tick asks for them again, and the sync brings the decline.
    const deadline = Date.now() + 30_000;
    while ((await unread()) === 0 && Date.now() < deadline) await sleep(TICK_MS);
    expect(await unread()).toBe(1);
    expect(pagesAsked()).toBeGreaterThan(before);
    const inbox = await t.request.get('/api/alerts/inbox').set(finance.headers());
    expect(inbox.body.items).toMatchObject([
      { kind: 'declined', ruleId: rule.body.id, transactionId: declined.id },
    ]);
    // No read of the index started it.
    expect(indexReads()).toBe(readsBefore);
  }, 60_000);
});
