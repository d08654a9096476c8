// The program's API key, PANs and CVVs: across everything this file makes the BFF do,
// none appears in a log line, or in any response other than a reveal's body.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import { cardNumbersIn } from '../test/secret-scan';

let t: TestApp;
const revealed: { pan: string; cvv: string }[] = [];

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 600, cards: 12 } });
});
afterAll(() => t.close());

const ids = () => {
  const sub = t.sim.data.subAccounts()[0]?.id ?? '';
  const cards = t.sim.data.cards().map((c) => c.id);
  const txn = t.sim.data.transactions(sub)[0]?.id ?? '';
  return { sub, cards, txn };
};

describe('secrets stay in the BFF', () => {
  it('exercises every kind of call, failures included', async () => {
    const admin = await t.signIn('admin');
    const finance = await t.signIn('finance');
    const { sub, cards, txn } = ids();
    for (const session of [admin, finance]) {
      const h = session.headers();
      await t.request.get('/api/session').set(h);
      await t.request.get('/api/sub-accounts').set(h);
      await t.request.get('/api/cards?sort=name&direction=desc').set(h);
      for (const id of cards.slice(0, 4)) await t.request.get(`/api/cards/${id}`).set(h);
      await t.request.get(`/api/transactions?subAccountId=${sub}`).set(h);
      await t.request.get(`/api/transactions/${txn}`).set(h);
      await t.request.get(`/api/transactions/export.csv?subAccountId=${sub}`).set(h);
      await t.request.get('/api/audit').set(h);
      await t.request.get('/api/cards?cursor=%%%').set(h);
      await t.request.post(`/api/cards/${cards[0]}/reveal`).set(h).send({ reason: 'x' });
    }
    for (const id of cards.slice(0, 5)) {
      const res = await t.request
        .post(`/api/cards/${id}/reveal`)
        .set(admin.headers())
        .send({ reason: 'customer on the phone' });
      expect(res.status).toBe(200);
      revealed.push({ pan: res.body.pan, cvv: res.body.cvv });
    }
    const limits = t.sim.data.card(cards[1] ?? '')?.spendingConstraint.spendingRule
      .transactionSizeLimit;
    const edit = await t.request
      .patch(`/api/cards/${cards[1]}`)
      .set(admin.headers())
      .send({
        transactionSizeLimit: { maximumCents: 123_400 },
        expected: {
          minimumCents: limits?.minimum.amountCents,
          maximumCents: limits?.maximum.amountCents,
        },
      });
    expect(edit.status).toBe(200);
    await t.request.post('/api/sub-accounts').set(admin.headers()).send({ name: 'Secrets test' });
    await t.request
      .post('/api/session')
      .set(t.apiHeaders())
      .send({ email: 'admin@demo.test', password: 'nope' });
    t.sim.faults.enqueue({ kind: 'status', status: 403 });
    await t.request.get('/api/cards').set(finance.headers());
    await t.request.get('/readyz');
    await t.request.delete('/api/session').set(finance.headers());
    expect(revealed).toHaveLength(5);
  });

  it('never writes the API key, a PAN or a CVV to the log', () => {
    const text = t.logs.join('\n');
    expect(t.logs.length).toBeGreaterThan(50);
    expect(text).not.toContain(t.apiKey);
    expect(cardNumbersIn(text)).toEqual([]);
    for (const { pan } of revealed) expect(text).not.toContain(pan);
    expect(text).not.toMatch(/"(pan|cvv)":"\d/);
  });

  it('never sends the API key anywhere, nor a PAN or CVV outside a reveal body', () => {
    expect(t.responses.length).toBeGreaterThan(35);
    for (const res of t.responses) {
      const headers = JSON.stringify(res.headers);
      expect(headers).not.toContain(t.apiKey);
      expect(cardNumbersIn(headers)).toEqual([]);
      const isReveal = res.method === 'POST' && /\/reveal$/.test(res.url) && res.status === 200;
      expect(res.body).not.toContain(t.apiKey);
      if (isReveal) {
        expect(res.headers['cache-control']).toBe('no-store');
        continue;
      }
      expect(cardNumbersIn(res.body), `${res.method} ${res.url}`).toEqual([]);
      for (const { pan } of revealed) expect(res.body).not.toContain(pan);
      expect(res.body).not.toMatch(/"(pan|cvv)"\s*:/);
    }
  });

  it('keeps the audit trail free of PANs and CVVs while recording the reveals', async () => {
    const text = await readFile(t.audit.path, 'utf8');
    const reveals = text.split('\n').filter((line) => line.includes('"card.reveal"'));
    expect(reveals.length).toBeGreaterThanOrEqual(5);
    expect(cardNumbersIn(text)).toEqual([]);
    for (const { pan } of revealed) expect(text).not.toContain(pan);
    expect(text).not.toMatch(/"(pan|cvv)"\s*:/);
  });
});
