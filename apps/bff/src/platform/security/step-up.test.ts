import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/harness';
import { totpCodeAt } from '../../test/totp-source';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 100 } });
});
afterAll(() => t.close());

const minute = 60_000;
const cardId = () => t.sim.data.cards()[0]?.id ?? '';
const reveal = (headers: Record<string, string>, body: Record<string, unknown>) =>
  t.request.post(`/api/cards/${cardId()}/reveal`).set(headers).send(body);

describe('step-up for a reveal', () => {
  it('needs no new code within 5 minutes of the admin sign-in', async () => {
    const admin = await t.signIn('admin');
    t.clock.advance(5 * minute - 1);
    const res = await reveal(admin.headers(), { reason: 'card holder on the phone' });
    expect(res.status).toBe(200);
  });

  it('asks for a code once 5 minutes have passed', async () => {
    const admin = await t.signIn('admin');
    t.clock.advance(5 * minute);
    const res = await reveal(admin.headers(), { reason: 'card holder on the phone' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('step_up_required');
  });

  it('accepts a fresh code and rotates the session id: the old id reads for 10 s without the step-up, then is refused', async () => {
    const admin = await t.signIn('admin');
    t.clock.advance(6 * minute);
    const oldCookie = admin.cookie;
    const res = await reveal(admin.headers(), {
      reason: 'card holder on the phone',
      totp: t.adminTotp(),
    });
    expect(res.status).toBe(200);
    expect(admin.absorb(res)).toBe(true);
    const old = { ...admin.headers(), Cookie: oldCookie };
    // A read the browser sent before the new cookie came: answered, as the id was before.
    const late = await t.request.get('/api/session').set(old);
    expect(late.status).toBe(200);
    expect(late.body.stepUpUntil).toBeUndefined();
    const noFactor = await reveal(old, { reason: 'card holder on the phone' });
    expect(noFactor.status).toBe(401);
    expect(noFactor.body.code).toBe('step_up_required');
    // A factor sent with the old id is not looked at: asked again, never a second rotation.
    const withFactor = await reveal(old, { reason: 'card holder on the phone', totp: '000000' });
    expect(withFactor.status).toBe(401);
    expect(withFactor.body.code).toBe('step_up_required');
    expect(withFactor.headers['set-cookie']).toBeUndefined();
    t.clock.advance(10_000);
    expect((await t.request.get('/api/session').set(old)).status).toBe(401);
    const who = await t.request.get('/api/session').set(admin.headers());
    expect(who.status).toBe(200);
    expect(who.body.stepUpUntil).toBe(t.clock.now() - 10_000 + 5 * minute);
  });

  it('answers every read sent with the old id while the step-up that rotates it runs', async () => {
    const admin = await t.signIn('admin');
    t.clock.advance(6 * minute);
    const old = admin.headers();
    const stepUp = reveal(old, { reason: 'card holder on the phone', totp: t.adminTotp() });
    const reads = Array.from({ length: 20 }, (_, i) =>
      t.request.get(i % 2 ? '/api/session' : '/api/cards').set(old),
    );
    const [revealed, ...answers] = await Promise.all([stepUp, ...reads]);
    expect(revealed.status).toBe(200);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
  });

  it('ends the id a step-up replaced with the session, at sign-out', async () => {
    const admin = await t.signIn('admin');
    t.clock.advance(6 * minute);
    const oldCookie = admin.cookie;
    const res = await reveal(admin.headers(), { reason: 'a look', totp: t.adminTotp() });
    expect(res.status).toBe(200);
    admin.absorb(res);
    expect((await t.request.delete('/api/session').set(admin.headers())).status).toBeLessThan(300);
    const old = await t.request.get('/api/session').set({ ...admin.headers(), Cookie: oldCookie });
    expect(old.status).toBe(401);
  });

  it('refuses a code already used, even by another session of the same person', async () => {
    const first = await t.signIn('admin');
    const second = await t.signIn('admin');
    t.clock.advance(6 * minute);
    const code = t.adminTotp();
    const ok = await reveal(first.headers(), { reason: 'first look', totp: code });
    expect(ok.status).toBe(200);
    const replay = await reveal(second.headers(), { reason: 'second look', totp: code });
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('invalid_totp');
  });

  it('refuses a wrong code', async () => {
    const admin = await t.signIn('admin');
    t.clock.advance(6 * minute);
    const right = totpCodeAt(t.credentials.admin.totpSecret ?? '', t.clock.now());
    const res = await reveal(admin.headers(), {
      reason: 'a look',
      totp: right === '123456' ? '654321' : '123456',
    });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_totp');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a reveal without a reason, whatever the step-up state', async () => {
    const admin = await t.signIn('admin');
    const res = await reveal(admin.headers(), {});
    expect(res.status).toBe(400);
    expect(res.headers['cache-control']).toBe('no-store');
  });
});
