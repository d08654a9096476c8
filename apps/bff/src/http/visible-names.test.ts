// Names people give (a card's, a new sub account's) through the real BFF: a name that could
// display as something else, or as nothing, is a 400 with a clear message and never reaches
// the card service.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import type { TestSession } from '../test/test-session';

let t: TestApp;
let admin: TestSession;
beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 50 } });
  admin = await t.signIn('admin');
});
afterAll(() => t.close());

const refused = [
  ['a right-to-left override', 'Payroll\u202Eexe.fdp', 'text-direction control'],
  ['a first-strong isolate', 'Ops\u2068team\u2069', 'text-direction control'],
  ['a right-to-left mark', 'Ops\u200F', 'text-direction control'],
  ['only zero-width characters', '\u200B\u200D\u2060\uFEFF', 'visible character'],
  ['only combining marks', '\u0301\u0302', 'visible character'],
] as const;

describe('POST /api/sub-accounts', () => {
  it.each(refused)('refuses a name with %s: 400, nothing created', async (_what, name, says) => {
    const before = t.sim.stats.total();
    const res = await t.request.post('/api/sub-accounts').set(admin.headers()).send({ name });
    expect(res.status).toBe(400);
    const body = apiErrorBodySchema.parse(res.body);
    expect(body.code).toBe('invalid_body');
    expect(body.detail).toContain(says);
    expect(t.sim.stats.total()).toBe(before);
  });
});

describe('PATCH /api/cards/:id', () => {
  it.each(refused)('refuses a name with %s: 400, nothing changed', async (_what, name, says) => {
    const card = t.sim.data.cards()[0];
    if (!card) throw new Error('no card');
    const before = t.sim.stats.total();
    const res = await t.request.patch(`/api/cards/${card.id}`).set(admin.headers()).send({ name });
    expect(res.status).toBe(400);
    const body = apiErrorBodySchema.parse(res.body);
    expect(body.detail).toMatch(new RegExp(`(^|; )name: [^;]*${says}`));
    expect(t.sim.stats.total()).toBe(before);
    expect(t.sim.data.card(card.id)?.name).toBe(card.name);
  });
});
