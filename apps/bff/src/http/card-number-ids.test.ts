// A card number typed where an id belongs: a 4xx before anything reaches the card service,
// never a 500, and (for mutations and denied routes) an audit record with the id masked.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import { testPan } from '../test/test-pan';
import type { TestSession } from '../test/test-session';

/** Doubled digits with their digits summed: written out, apart from the BFF's own Luhn. */
const doubled = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];

/** A Luhn-valid number of `length` digits, made at run time from `seed`. */
function panOfLength(length: number, seed: number): string {
  let body = '4';
  let x = seed;
  while (body.length < length - 1) {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    body += String(5 + (x % 5)); // digits 5-9: each doubled one takes the d > 9 step
  }
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const digit = Number(body[body.length - 1 - i]);
    sum += i % 2 === 0 ? (doubled[digit] as number) : digit;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

const pans = [
  ['16 digits', testPan(987654321)],
  ['13 digits', panOfLength(13, 7)],
  ['19 digits', panOfLength(19, 11)],
] as const;

let t: TestApp;
let admin: TestSession;
let finance: TestSession;
beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 100 } });
  admin = await t.signIn('admin');
  finance = await t.signIn('finance');
});
afterAll(() => t.close());

async function auditFor(requestId: string) {
  const page = await t.audit.list({ limit: 1000 });
  return page.items.filter((r) => r.requestId === requestId);
}

/** No card number anywhere the attempt left a trace: answer, audit trail, log. */
async function expectNoTraceOf(pan: string, res: { text: string }) {
  expect(res.text).not.toContain(pan);
  const trail = JSON.stringify((await t.audit.list({ limit: 1000 })).items);
  expect(trail).not.toContain(pan);
  expect(trail).not.toMatch(/\d{13}/);
  expect(t.logs.join('\n')).not.toContain(pan);
}

function expectInvalidId(res: { status: number; body: unknown; text: string }, pan: string) {
  expect(res.status).toBe(400);
  const body = apiErrorBodySchema.parse(res.body);
  expect(body.code).toBe('invalid_id');
  expect(body.detail).not.toContain(pan.slice(-4));
}

describe.each(pans)('a card number (%s) in place of a card id', (_length, pan) => {
  const masked = `•••• ${pan.slice(-4)}`;

  it('PATCH by an admin: 400 invalid_id, nothing upstream, audited as a refused change with the id masked', async () => {
    const before = t.sim.stats.total();
    const res = await t.request.patch(`/api/cards/${pan}`).set(admin.headers()).send({
      name: 'Renamed',
    });
    expectInvalidId(res, pan);
    expect(t.sim.stats.total()).toBe(before);
    expect(await auditFor(res.body.requestId)).toMatchObject([
      {
        action: 'card.update',
        outcome: 'denied',
        actor: t.credentials.admin.email,
        cardId: masked,
        detail: 'invalid_id',
      },
    ]);
    await expectNoTraceOf(pan, res);
  });

  it('reveal by an admin: 400 invalid_id, nothing upstream, audited as a refused reveal with the id masked', async () => {
    const before = t.sim.stats.total();
    const res = await t.request
      .post(`/api/cards/${pan}/reveal`)
      .set(admin.headers())
      .send({ reason: 'customer on the phone' });
    expectInvalidId(res, pan);
    expect(t.sim.stats.total()).toBe(before);
    expect(await auditFor(res.body.requestId)).toMatchObject([
      { action: 'card.reveal', outcome: 'denied', cardId: masked, detail: 'invalid_id' },
    ]);
    await expectNoTraceOf(pan, res);
  });

  it('PATCH by finance (a denied route): 403, audited as a denial with the id masked', async () => {
    const res = await t.request.patch(`/api/cards/${pan}`).set(finance.headers()).send({
      name: 'Renamed',
    });
    expect(res.status).toBe(403);
    expect(await auditFor(res.body.requestId)).toMatchObject([
      {
        action: 'access.denied',
        outcome: 'denied',
        actor: t.credentials.finance.email,
        target: 'PATCH /api/cards/:id',
        cardId: masked,
      },
    ]);
    await expectNoTraceOf(pan, res);
  });

  it('reads: 400 invalid_id for a card or a transaction, nothing upstream, nothing audited', async () => {
    const before = t.sim.stats.total();
    for (const path of [`/api/cards/${pan}`, `/api/transactions/${pan}`]) {
      const res = await t.request.get(path).set(finance.headers());
      expectInvalidId(res, pan);
      expect(await auditFor(res.body.requestId)).toEqual([]);
      await expectNoTraceOf(pan, res);
    }
    expect(t.sim.stats.total()).toBe(before);
  });

  it('the request line carries the path with the number masked', async () => {
    const res = await t.request.get(`/api/cards/${pan}`).set(finance.headers());
    const line = t.logs
      .map((text) => JSON.parse(text) as { req?: { id?: string; path?: string } })
      .find((l) => l.req?.id === res.body.requestId);
    expect(line?.req?.path).toBe(`/api/cards/${masked}`);
  });
});

describe('a card number written in groups', () => {
  const pan = testPan(555555555);
  const groups = pan.match(/\d{4}/g) ?? [];

  it.each([
    ['dashes', groups.join('-')],
    ['escaped spaces', groups.join('%20')],
  ])('with %s: 400 invalid_id and audited masked', async (_how, written) => {
    const res = await t.request.patch(`/api/cards/${written}`).set(admin.headers()).send({
      name: 'Renamed',
    });
    expectInvalidId(res, pan);
    expect(await auditFor(res.body.requestId)).toMatchObject([
      { action: 'card.update', cardId: `•••• ${pan.slice(-4)}`, detail: 'invalid_id' },
    ]);
    const traces = [JSON.stringify(await auditFor(res.body.requestId)), t.logs.join('\n')];
    for (const form of [written, groups.join(' '), groups.join('-'), pan]) {
      for (const trace of traces) expect(trace).not.toContain(form);
    }
  });
});

describe('ids that only look numeric', () => {
  it('a 13-digit run that fails the Luhn check is an ordinary id: the card service answers 404', async () => {
    const valid = panOfLength(13, 3);
    // Another check digit: thirteen digits have one window only, and it no longer passes.
    const notAPan = `${valid.slice(0, 12)}${(Number(valid[12]) + 1) % 10}`;
    const before = t.sim.stats.total();
    const res = await t.request.get(`/api/cards/${notAPan}`).set(finance.headers());
    expect(res.status).toBe(404);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('not_found');
    expect(t.sim.stats.total()).toBeGreaterThan(before);
  });
});
