// The tight reveal limit counts reveals and nothing else: with room for one reveal a minute,
// other POSTs, PATCHes and reads before it do not use that room up, and once it is used up
// they still go through.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import type { TestSession } from '../test/test-session';

let t: TestApp;
let admin: TestSession;
beforeAll(async () => {
  t = await startTestApp({
    sim: { transactions: 50 },
    env: { rateLimits: { revealsPerMinute: 1 } },
  });
  admin = await t.signIn('admin');
});
afterAll(() => t.close());

const card = () => t.sim.data.cards()[0]?.id ?? '';

/**
 * Calls that are not reveals, each answered past the access and rate-limit checks. The bodies
 * are malformed JSON, read only after those checks: a 400 `invalid_json` is a call that got
 * through them.
 */
async function otherCalls() {
  const json = admin.headers({ 'Content-Type': 'application/json' });
  const statuses = [
    (await t.request.post('/api/sub-accounts').set(json).send('{"name": ')).status,
    (await t.request.patch(`/api/cards/${card()}`).set(json).send('{"name": ')).status,
    (await t.request.get('/api/cards').set(admin.headers())).status,
    (await t.request.get(`/api/cards/${card()}`).set(admin.headers())).status,
    (await t.request.get('/api/session').set(admin.headers())).status,
  ];
  expect(statuses).toEqual([400, 400, 200, 200, 200]);
}

const reveal = () =>
  t.request
    .post(`/api/cards/${card()}/reveal`)
    .set(admin.headers())
    .send({ reason: 'reveal limit scope test' });

describe('the reveal limit', () => {
  it('is not used up by other POSTs, PATCHes or reads, and does not hold them back', async () => {
    await otherCalls();
    await otherCalls();

    const first = await reveal();
    expect(first.status).toBe(200);
    const second = await reveal();
    expect(second.status).toBe(429);
    const body = apiErrorBodySchema.parse(second.body);
    expect(second.headers['retry-after']).toBe(String(body.retryAfterSeconds));

    await otherCalls();
  });
});
