// A rule "also to the card's owner" set by one person must not carry text that person typed to
// someone else. Over real HTTP: an admin gives a card an owner; a finance person saves a rule on
// that card whose name reads as a notice from the company; the index sync raises its alert and
// the delivery worker sends it through a real SMTP server. The card's owner is told what
// happened, and who set the rule, never the rule's name; the rule's own author still reads it.
// The same in the inbox of a card's owner who is a person in People.
import { alertRuleSchema, inboxPageSchema } from '@card-console/shared/api/alerts';
import { describe, expect, it } from 'vitest';
import { appWithMailCapture, captureWorker } from '../../test/alerts-app';
import type { TestSession } from '../../test/harness';
import { settledIndexList } from '../../test/settled-index';

const PHISH = 'Your card is frozen: verify it at https://card-help.example.net today';
const HOLDER = 'holder@cardholders.example.test';

describe("a rule's alerts to a card's owner", () => {
  // One email an hour each: the rest are folded into a recipient's digest.
  const app = appWithMailCapture(1);

  /** The newest declines of two different cards, newest first. */
  function newestDeclinesOfTwoCards() {
    const declines = app.t.sim.data
      .subAccounts()
      .flatMap((s) => app.t.sim.data.transactions(s.id))
      .filter((tx) => tx.status === 'declined' && tx.cardId !== undefined)
      .sort((x, y) => Date.parse(y.date) - Date.parse(x.date));
    const first = declines[0];
    const second = declines.find((tx) => tx.cardId !== first?.cardId);
    if (!first || !second) throw new Error('the simulator has no declines on two cards');
    return [first, second] as const;
  }

  async function giveOwner(admin: TestSession, cardId: string, name: string, email: string) {
    const res = await app.t.request
      .put(`/api/cards/${encodeURIComponent(cardId)}/owner`)
      .set(admin.headers())
      .send({ owner: { name, email }, team: null });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  it('emails the card’s owner no text the rule’s author typed, and names who set it; the author reads their name', async () => {
    const admin = await app.t.signIn('admin');
    const adminEmail = app.t.credentials.admin.email.toLowerCase();
    const financeEmail = app.t.credentials.finance.email.toLowerCase();
    const [toHolder, toAdmin] = newestDeclinesOfTwoCards();
    // One card's owner is a cardholder who does not sign in, the other's is a person (the admin,
    // kept in People as the server keeps everyone: this app reads its users file instead).
    await app.t.stores.sql.query(
      `INSERT INTO person (email, role, source, created_at, updated_at)
       VALUES ($1, 'admin', 'file', now(), now())`,
      [adminEmail],
    );
    await giveOwner(admin, toHolder.cardId as string, 'Card Holder', HOLDER);
    await giveOwner(admin, toAdmin.cardId as string, 'The Admin', adminEmail);

    // A rule looks forward from its saving: saved (over HTTP, by a finance person) just before
    // the older of the two declines, as if the declines came after it.
    const now = app.t.clock.now();
    // The holder's card's newest transactions too: its charges fire the second rule.
    const holderCard = app.t.sim.data
      .subAccounts()
      .flatMap((s) => app.t.sim.data.transactions(s.id))
      .filter((tx) => tx.cardId === toHolder.cardId)
      .map((tx) => Date.parse(tx.date))
      .sort((x, y) => y - x);
    const older = Math.min(
      Date.parse(toHolder.date),
      Date.parse(toAdmin.date),
      holderCard[3] ?? Number.POSITIVE_INFINITY,
    );
    app.t.clock.set(older - 60_000);
    const finance = await app.t.signIn('finance');
    const email = { inbox: false, email: true };
    for (const rule of [
      { kind: 'declined', cardId: toHolder.cardId, channels: email },
      { kind: 'amount_above', amountCents: 1, cardId: toHolder.cardId, channels: email },
      { kind: 'declined', cardId: toAdmin.cardId, channels: { inbox: true, email: false } },
    ]) {
      const res = await app.t.request
        .post('/api/alerts/rules')
        .set(finance.headers())
        .send({ ...rule, name: PHISH, cardOwner: true });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      alertRuleSchema.parse(res.body);
    }
    app.t.clock.set(now);

    // The sync raises the alerts; the worker sends the emails.
    await settledIndexList(app.t, await app.t.signIn('admin'));
    const worker = captureWorker(app.t, app.smtp.url, () => [financeEmail, adminEmail]);
    await worker.runOnce();
    const folded = await app.t.stores.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM alert_delivery WHERE recipient = $1 AND state = 'folded'`,
      [HOLDER],
    );
    expect(Number(folded[0]?.n)).toBeGreaterThan(0);
    // Once the day is over, the alerts the hour's cap kept back come in one digest.
    app.t.clock.advance(86_400_000);
    await worker.runOnce();
    await worker.stop();

    const holderMail = app.smtp.mails.filter((m) => m.to.includes(HOLDER));
    expect(holderMail).toHaveLength(2);
    const digest = holderMail[1];
    expect(digest?.subject).toMatch(/not emailed one by one$/);
    const lines = (digest?.text ?? '')
      .split('\n')
      .filter((line) => / · \d\d:\d\d UTC: /.test(line));
    expect(lines).toHaveLength(Number(folded[0]?.n));
    for (const line of lines) {
      expect(line.startsWith(`An alert rule ${financeEmail} set in Card Console · `)).toBe(true);
    }
    for (const mail of holderMail) {
      for (const part of [mail.subject, mail.text, mail.html]) {
        expect(part).not.toContain('card-help.example.net');
        expect(part).not.toContain('frozen');
      }
    }
    expect(holderMail[0]?.text).toContain(
      `Rule: An alert rule ${financeEmail} set in Card Console`,
    );
    // The rule's author, emailed too, reads the name they gave it.
    const authorMail = app.smtp.mails.filter((m) => m.to.includes(financeEmail));
    expect(authorMail.length).toBeGreaterThan(0);
    for (const mail of authorMail) {
      if (/not emailed one by one$/.test(mail.subject)) expect(mail.text).toContain(`${PHISH} · `);
      else expect(mail.text).toContain(`Rule: ${PHISH}`);
    }

    // A card's owner who is a person sees the alert in their inbox, without the name.
    const res = await app.t.request
      .get('/api/alerts/inbox')
      .set((await app.t.signIn('admin')).headers());
    expect(res.status).toBe(200);
    const items = inboxPageSchema
      .parse(res.body)
      .items.filter((i) => 'transactionId' in i && i.transactionId === toAdmin.id);
    expect(items).toHaveLength(1);
    expect(items[0]?.ruleName).toBe(`An alert rule ${financeEmail} set in Card Console`);
  }, 120_000);
  it('an alert raised before its rule’s owner was kept with it is read by its rule’s owner', async () => {
    const [admin, finance] = [await app.t.signIn('admin'), await app.t.signIn('finance')];
    const financeEmail = app.t.credentials.finance.email.toLowerCase();
    const names = async (session: TestSession) => {
      const res = await app.t.request.get('/api/alerts/inbox').set(session.headers());
      expect(res.status).toBe(200);
      return inboxPageSchema.parse(res.body).items.map((i) => [i.id, i.ruleName] as const);
    };
    // As an older build stored them: no owner in the payload.
    await app.t.stores.sql.query(`UPDATE alert SET payload = payload - 'ruleOwner'`);
    const shared = (await names(admin)).map(([id]) => id);
    expect(shared.length).toBeGreaterThan(0);
    expect(new Set((await names(admin)).map(([, name]) => name))).toEqual(
      new Set([`An alert rule ${financeEmail} set in Card Console`]),
    );
    const own = (await names(finance)).filter(([id]) => shared.includes(id));
    expect(own.length).toBe(shared.length);
    expect(new Set(own.map(([, name]) => name))).toEqual(new Set([PHISH]));
    // Its rule removed, whose it was is not known: nobody is shown the name.
    await app.t.stores.sql.query('DELETE FROM alert_rule');
    expect(new Set((await names(admin)).map(([, name]) => name))).toEqual(
      new Set(['An alert rule set in Card Console']),
    );
  });
});
