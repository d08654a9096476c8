// Many sign-ins in flight at once, over real HTTP: the limits hold for requests that arrive
// together, not only for ones that arrive one after another.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/harness';
import { firstAnswer, sendNow } from '../../test/send-now';
import { totpCodeAt, wrongTotpCodes } from '../../test/totp-source';

let t: TestApp;
afterEach(() => t?.close());

const signIn = (body: Record<string, unknown>, address?: string) =>
  t.request
    .post('/api/session')
    .set(t.apiHeaders(address ? { 'X-Forwarded-For': address } : {}))
    .send(body);

async function failedSignIns(detail: string) {
  const { items } = await t.audit.list({ limit: 1_000 });
  return items.filter(
    (r) => r.action === 'session.signIn' && r.outcome === 'failed' && r.detail === detail,
  );
}

describe('a burst of sign-ins for one account from one address', () => {
  it('evaluates at most 5 passwords, and the right one sent while the others are in flight gets 429', async () => {
    t = await startTestApp();
    const { email, password } = t.credentials.finance;
    const wrong = Array.from({ length: 149 }, (_, i) =>
      sendNow(signIn({ email, password: `wrong-guess-${i}` })),
    );
    // Once one is refused, every attempt the account has at this address is taken.
    await firstAnswer(wrong, (res) => res.status === 429);
    const right = await sendNow(signIn({ email, password }));
    const answers = await Promise.all(wrong);

    expect(right.status).toBe(429);
    expect(apiErrorBodySchema.parse(right.body).code).toBe('rate_limited');
    expect(right.headers['set-cookie']).toBeUndefined();
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(144);
    expect(await failedSignIns('bad email or password')).toHaveLength(5);
  }, 60_000);

  it('evaluates at most 5 admin codes with the right password, and the valid code sent last gets 429', async () => {
    t = await startTestApp();
    const { email, password, totpSecret } = t.credentials.admin;
    const secret = totpSecret ?? '';
    const wrong = wrongTotpCodes(secret, t.clock.now(), 149).map((totp) =>
      sendNow(signIn({ email, password, totp })),
    );
    await firstAnswer(wrong, (res) => res.status === 429);
    const valid = await sendNow(
      signIn({ email, password, totp: totpCodeAt(secret, t.clock.now()) }),
    );
    const answers = await Promise.all(wrong);

    expect(valid.status).toBe(429);
    expect(valid.headers['set-cookie']).toBeUndefined();
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(144);
    expect(await failedSignIns('bad second-factor code')).toHaveLength(5);
  }, 60_000);
});

describe('a burst of sign-ins from many addresses', () => {
  it('is partly refused by the hashing cap, and a read and another sign-in are still answered', async () => {
    t = await startTestApp({ env: { trustProxy: true } });
    const reader = await t.signIn('finance');
    const burst = Array.from({ length: 400 }, (_, i) =>
      sendNow(
        signIn(
          { email: `someone-${i}@example.test`, password: 'a guess' },
          `${i < 200 ? '198.51.100' : '203.0.113'}.${(i % 200) + 1}`,
        ),
      ),
    );
    const read = sendNow(t.request.get('/api/cards').set(reader.headers()));
    const { email, password } = t.credentials.finance;
    const other = sendNow(signIn({ email, password }, '192.0.2.10'));
    const [readAnswer, otherAnswer, answers] = await Promise.all([read, other, Promise.all(burst)]);

    // How soon the read and the other sign-in are answered depends on the machine's load, so
    // no time is asserted; what is asserted is that both are answered and that the burst
    // cannot queue without end: beyond the cap's queue it is turned away at once.
    expect(readAnswer.status).toBe(200);

    // Nothing hangs or breaks: each guess is evaluated (401) or turned away at once (429).
    expect(answers.every((res) => res.status === 401 || res.status === 429)).toBe(true);
    const busy = answers.filter((res) => res.status === 429);
    expect(busy.length).toBeGreaterThan(0);
    for (const res of busy) {
      expect(apiErrorBodySchema.parse(res.body).code).toBe('rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    // The other person is answered too: signed in, or told to retry in a moment.
    if (otherAnswer.status === 429) {
      expect(otherAnswer.body.code).toBe('rate_limited');
      expect(otherAnswer.headers['retry-after']).toBe('1');
    } else {
      expect(otherAnswer.status).toBe(200);
    }
  }, 120_000);
});
