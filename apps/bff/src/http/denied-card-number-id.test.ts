// A card number typed where a card id belongs, on a route the caller's role may not use: the
// denial is still audited, and the record never holds the number (the audit store would refuse
// a record that did, and the denial would go unrecorded).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import { withCheckDigit } from '../test/reference-luhn';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 50 } });
});
afterAll(() => t.close());

const cardNumber = withCheckDigit(`${'5'.repeat(12)}444`);

describe('a denied call with a card number as the card id', () => {
  it.each([
    ['the number alone', cardNumber],
    ['the number inside an id', `card_${cardNumber}`],
  ])('%s: 403, audited as access.denied, without the number', async (_name, id) => {
    const finance = await t.signIn('finance');
    const res = await t.request
      .post(`/api/cards/${id}/reveal`)
      .set(finance.headers())
      .send({ reason: 'typed the number' });
    expect(res.status).toBe(403);

    const { items } = await t.audit.list({ limit: 100 });
    const record = items.find((r) => r.requestId === res.headers['x-request-id']);
    expect(record).toMatchObject({
      actor: t.credentials.finance.email,
      action: 'access.denied',
      outcome: 'denied',
    });
    expect(JSON.stringify(record)).not.toContain(cardNumber);
  });

  it('a well-formed id on the same denied route is recorded as it is', async () => {
    const finance = await t.signIn('finance');
    const id = t.sim.data.cards()[0]?.id ?? '';
    const res = await t.request
      .post(`/api/cards/${id}/reveal`)
      .set(finance.headers())
      .send({ reason: 'not allowed' });
    expect(res.status).toBe(403);
    const { items } = await t.audit.list({ limit: 100 });
    const record = items.find((r) => r.requestId === res.headers['x-request-id']);
    expect(record).toMatchObject({ action: 'access.denied', cardId: id });
  });
});
