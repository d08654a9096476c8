// Wrong step-up codes end the session: one after another, and sent all at once.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/harness';
import { firstAnswer, sendNow } from '../../test/send-now';
import { wrongTotpCodes } from '../../test/totp-source';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp({ sim: { transactions: 100 } });
});
afterEach(() => t.close());

const minute = 60_000;
const cardId = () => t.sim.data.cards()[0]?.id ?? '';
const reveal = (headers: Record<string, string>, totp: string) =>
  t.request
    .post(`/api/cards/${cardId()}/reveal`)
    .set(headers)
    .send({ reason: 'card holder on the phone', totp });

const wrongCodes = (count: number) =>
  wrongTotpCodes(t.credentials.admin.totpSecret ?? '', t.clock.now(), count);

async function auditRecords() {
  const { items } = await t.audit.list({ limit: 1_000 });
  return items;
}

/** Reveal refusals by reason (the `detail` of each `card.reveal` denied record). */
async function revealDenials(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const r of await auditRecords()) {
    if (r.action === 'card.reveal' && r.outcome === 'denied' && r.detail) {
      counts[r.detail] = (counts[r.detail] ?? 0) + 1;
    }
  }
  return counts;
}

describe('wrong step-up codes', () => {
  it('end the session at the 5th: audited, the cookie cleared, the old cookie refused', async () => {
    const admin = await t.signIn('admin');
    t.clock.advance(6 * minute);
    const [first, second, third, fourth, fifth] = wrongCodes(5) as [
      string,
      string,
      string,
      string,
      string,
    ];
    for (const code of [first, second, third, fourth]) {
      const res = await reveal(admin.headers(), code);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_totp');
    }
    const last = await reveal(admin.headers(), fifth);
    expect(last.status).toBe(401);
    expect(last.body.code).toBe('session_ended');
    expect(String(last.headers['set-cookie'])).toMatch(/cc_session=;.*Expires=Thu, 01 Jan 1970/);

    expect((await t.request.get('/api/session').set(admin.headers())).status).toBe(401);
    const after = await reveal(admin.headers(), t.adminTotp());
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('unauthenticated');

    const ended = (await auditRecords()).filter((r) => r.action === 'session.ended');
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({
      actor: t.credentials.admin.email,
      role: 'admin',
      outcome: 'denied',
      detail: 'step_up_failures',
    });
    expect(await revealDenials()).toEqual({ invalid_totp: 4, session_ended: 1 });

    // Signing in again starts afresh: a valid code now passes.
    const again = await t.signIn('admin');
    t.clock.advance(6 * minute);
    expect((await reveal(again.headers(), t.adminTotp())).status).toBe(200);
  });

  it('are forgotten when a code passes: the session id changes, and so does the count', async () => {
    const admin = await t.signIn('admin');
    t.clock.advance(6 * minute);
    for (const code of wrongCodes(4)) {
      expect((await reveal(admin.headers(), code)).body.code).toBe('invalid_totp');
    }
    const ok = await reveal(admin.headers(), t.adminTotp());
    expect(ok.status).toBe(200);
    admin.absorb(ok);
    t.clock.advance(6 * minute);
    const codes = wrongCodes(5);
    for (const code of codes.slice(0, 4)) {
      expect((await reveal(admin.headers(), code)).body.code).toBe('invalid_totp');
    }
    expect((await reveal(admin.headers(), codes[4] ?? '')).body.code).toBe('session_ended');
  });

  it('sent at once, at most 5 are checked; the valid code sent last does not pass and the session ends', async () => {
    const admin = await t.signIn('admin');
    t.clock.advance(6 * minute);
    const headers = admin.headers();
    const burst = wrongCodes(149).map((code) => sendNow(reveal(headers, code)));
    // Once one is turned away, every attempt this session has is taken.
    await firstAnswer(burst, (res) => res.status === 429 || res.body.code === 'session_ended');
    const valid = await sendNow(reveal(headers, t.adminTotp()));
    const answers = await Promise.all(burst);

    expect(valid.status).not.toBe(200);
    expect(valid.body.pan).toBeUndefined();
    expect(answers.every((res) => res.status !== 200)).toBe(true);
    // Five codes were checked: four wrong, and the fifth wrong one ended the session (a
    // sixth would have been a fifth `invalid_totp` or a second end). The rest were turned
    // away unchecked: 429 while codes were being checked, then the session was gone.
    const codes = answers.map((res) => res.body.code as string);
    expect(codes.filter((c) => c === 'invalid_totp')).toHaveLength(4);
    expect(codes).toContain('session_ended');
    expect(
      codes.every((c) =>
        ['invalid_totp', 'session_ended', 'rate_limited', 'unauthenticated'].includes(c),
      ),
    ).toBe(true);
    expect((await revealDenials()).invalid_totp).toBe(4);
    const ended = (await auditRecords()).filter((r) => r.action === 'session.ended');
    expect(ended).toHaveLength(1);
    expect((await t.request.get('/api/session').set(headers)).status).toBe(401);
  }, 60_000);
});
