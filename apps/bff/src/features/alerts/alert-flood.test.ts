// The flood, reproduced: one person's many rules over the transactions of one sync
// made about 1,000 emails in five seconds, everyone else's alerts queued behind them. Now that
// person gets at most the hour's cap one by one, the rest in one digest once the day is over;
// another person's alerts of the same sync go in the worker's first pass; every alert is in
// the inboxes either way.
import { describe, expect, it } from 'vitest';
import { findCardNumbers } from '../../platform/security/card-numbers';
import { appWithMailCapture, captureWorker } from '../../test/alerts-app';
import { settledIndexList } from '../../test/settled-index';

/** As many as the rows the sync writes after the rules: the other person's one rule stays under it. */
const CAP = 8;
const RULES = 30;

describe('one person’s many rules over one sync', () => {
  const app = appWithMailCapture(CAP);

  it('emails that person the hour’s cap, folds the rest into one digest, and sends the others’ alerts at once', async () => {
    const finance = app.t.credentials.finance.email.toLowerCase();
    const admin = app.t.credentials.admin.email.toLowerCase();
    // Rules saved just before the newest transactions (a rule looks forward only).
    const newest = app.t.sim.data
      .subAccounts()
      .flatMap((s) => app.t.sim.data.transactions(s.id))
      .map((tx) => Date.parse(tx.date))
      .sort((x, y) => y - x);
    const before = new Date((newest[CAP - 1] as number) - 1);
    const store = await app.t.stores.alerts();
    const channels = { inbox: true, email: true };
    await store.createRule({ kind: 'declined', name: 'Declines', channels }, finance, before);
    for (let cents = 1; cents < RULES; cents++) {
      const name = `Spend over ${cents} cents`;
      await store.createRule(
        { kind: 'amount_above', name, amountCents: cents, channels },
        finance,
        before,
      );
    }
    await store.createRule(
      { kind: 'amount_above', name: 'Admin spend', amountCents: 1, channels },
      admin,
      before,
    );

    // One sync raises them all.
    await settledIndexList(app.t, await app.t.signIn('finance'));
    const states = await app.t.stores.sql.query<{
      recipient: string;
      state: string;
      n: number;
    }>(
      `SELECT recipient, state, count(*)::int AS n FROM alert_delivery WHERE channel = 'email'
        GROUP BY recipient, state ORDER BY recipient, state`,
    );
    const count = (recipient: string, state: string) =>
      Number(states.find((r) => r.recipient === recipient && r.state === state)?.n ?? 0);
    const folded = count(finance, 'folded');
    expect(count(finance, 'pending')).toBe(CAP);
    expect(folded).toBeGreaterThan(4 * CAP);
    const adminAlerts = count(admin, 'pending');
    expect(adminAlerts).toBeGreaterThan(0);
    expect(count(admin, 'folded')).toBe(0);
    // Every alert is in the inbox at once, whatever its email.
    expect(await store.unreadCount(finance)).toBe(CAP + folded);

    // The worker's first pass: the cap for that person, and every alert of the other.
    // Everyone who may be alerted: the people whose rules raised these alerts.
    const worker = captureWorker(app.t, app.smtp.url, () => [finance, admin]);
    await worker.runOnce();
    const to = (who: string) => app.smtp.mails.filter((m) => m.to.includes(who));
    expect(to(finance)).toHaveLength(CAP);
    expect(to(admin)).toHaveLength(adminAlerts);
    await worker.runOnce();
    expect(to(finance)).toHaveLength(CAP);

    // Once the day is over: one digest for that person with every folded alert, and no more.
    app.t.clock.advance(86_400_000);
    await worker.runOnce();
    await worker.runOnce();
    const digests = to(finance).slice(CAP);
    expect(digests).toHaveLength(1);
    const digest = digests[0] as (typeof digests)[number];
    const day = new Date(app.t.clock.now() - 86_400_000).toISOString().slice(0, 10);
    expect(digest.subject).toBe(`[Card Console] ${folded} alerts on ${day} not emailed one by one`);
    const lines = digest.text.split('\n').filter((line) => / · \d\d:\d\d UTC: /.test(line));
    expect(lines).toHaveLength(folded);
    expect(lines.some((line) => line.startsWith('Spend over '))).toBe(true);
    expect(findCardNumbers(digest.text + digest.html)).toEqual([]);
    expect(to(admin)).toHaveLength(adminAlerts);
    await worker.stop();
  }, 120_000);
});
