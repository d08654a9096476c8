// The sign-in limits by address: the client's address is `req.ip`, taken from
// X-Forwarded-For because these apps trust the proxy (TRUST_PROXY=true).
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterEach, describe, expect, it } from 'vitest';
import type { RateLimitConfig } from '../../env';
import type { ScryptParams } from '../../platform/users/password-hash';
import { startTestApp, type TestApp } from '../../test/harness';
import { sendNow } from '../../test/send-now';

let t: TestApp;
afterEach(() => t?.close());

const start = (rateLimits: Partial<RateLimitConfig> = {}, scrypt?: ScryptParams) =>
  startTestApp({ env: { trustProxy: true, rateLimits }, scrypt });

const signIn = (body: Record<string, unknown>, address: string) =>
  t.request
    .post('/api/session')
    .set(t.apiHeaders({ 'X-Forwarded-For': address }))
    .send(body);

const attacker = '198.51.100.7';
const owner = '192.0.2.10';

describe('sign-in limits per account and address', () => {
  it('failures at one address lock that address out of the account, not its owner elsewhere', async () => {
    t = await start();
    const { email, password } = t.credentials.finance;
    for (let i = 0; i < 5; i++) {
      expect((await signIn({ email, password: `wrong-${i}` }, attacker)).status).toBe(401);
    }
    const locked = await signIn({ email, password }, attacker);
    expect(locked.status).toBe(429);
    expect(apiErrorBodySchema.parse(locked.body).retryAfterSeconds).toBeGreaterThan(14 * 60);

    // The owner, elsewhere, is neither locked nor charged for the attacker's guesses.
    expect((await signIn({ email, password: 'a typo' }, owner)).status).toBe(401);
    const ownerIn = await signIn({ email, password }, owner);
    expect(ownerIn.status).toBe(200);
    expect(ownerIn.body.email).toBe(email);
  });

  it('the account ceiling locks the account at every address and logs an alarm, never the password', async () => {
    t = await start({ signInFailuresPerAccount: 12 });
    const { email, password } = t.credentials.finance;
    const addresses = ['198.51.100.1', '198.51.100.2', '198.51.100.3'];
    for (const address of addresses) {
      for (let i = 0; i < 4; i++) {
        const res = await signIn({ email, password: `secret-guess-${address}-${i}` }, address);
        expect(res.status).toBe(401);
      }
    }
    const ownerLocked = await signIn({ email, password }, owner);
    expect(ownerLocked.status).toBe(429);
    expect(apiErrorBodySchema.parse(ownerLocked.body).code).toBe('rate_limited');

    const lines = t.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    const alarms = lines.filter((l) => l.alarm === 'signin_account_ceiling');
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ level: 50, account: email, attempts: 12 });
    expect(t.logs.join('\n')).not.toContain('secret-guess');
    expect(t.logs.join('\n')).not.toContain(password);
  });

  it('names no unknown email in the ceiling alarm (it may be a password typed in the wrong field)', async () => {
    t = await start({ signInFailuresPerAccount: 2 });
    const typed = 'my-password-typed-as-email@example.test';
    await signIn({ email: typed, password: 'x' }, '198.51.100.1');
    await signIn({ email: typed, password: 'y' }, '198.51.100.2');
    const alarm = t.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((l) => l.alarm === 'signin_account_ceiling');
    expect(alarm).toMatchObject({ account: '(unknown account)' });
    expect(t.logs.join('\n')).not.toContain(typed);
  });

  it('a right password without a code costs an attempt at that address, so it cannot be asked without end', async () => {
    t = await start();
    const { email, password } = t.credentials.admin;
    for (let i = 0; i < 5; i++) {
      const res = await signIn({ email, password }, attacker);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('second_factor_required');
    }
    expect((await signIn({ email, password }, attacker)).status).toBe(429);
    // A wrong password never hears that a code is needed.
    const wrong = await signIn({ email, password: 'not it' }, owner);
    expect(wrong.body.code).toBe('invalid_credentials');
    // The owner elsewhere is still asked for the code, and then signs in.
    expect((await signIn({ email, password }, owner)).body.code).toBe('second_factor_required');
    const ownerIn = await signIn({ email, password, totp: t.adminTotp() }, owner);
    expect(ownerIn.status).toBe(200);
  });

  it('an attempt turned away by a full hashing queue counts nowhere', async () => {
    // A hash that holds the one slot for a while (32 MiB, ~150 ms here, against the tests' ~2 ms):
    // at the tests' cost the first guess could finish before the next reached the gate on a
    // loaded machine, and none was turned away.
    t = await start({ signInHashesAtOnce: 1, signInHashesQueued: 0 }, { N: 2 ** 15, r: 8, p: 1 });
    const { email } = t.credentials.finance;
    // As many at once as the account has attempts at this address: none is refused by the limit.
    const burst = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        sendNow(signIn({ email, password: `burst-${i}` }, attacker)),
      ),
    );
    const evaluated = burst.filter((res) => res.status === 401).length;
    const busy = burst.filter((res) => res.status === 429);
    expect(evaluated + busy.length).toBe(5);
    expect(busy.length).toBeGreaterThan(0);
    for (const res of busy) expect(res.body.detail).toMatch(/busy/);

    // Exactly the evaluated guesses were counted: the rest of the 5 are still there.
    for (let i = evaluated; i < 5; i++) {
      expect((await signIn({ email, password: `later-${i}` }, attacker)).status).toBe(401);
    }
    expect((await signIn({ email, password: 'one too many' }, attacker)).status).toBe(429);
  });
});
