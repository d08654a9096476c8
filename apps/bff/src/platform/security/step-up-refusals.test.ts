// SecondFactorStepUp straight through its dependencies, for refusals HTTP reaches only by chance or
// not at all: no loaded session, an account with no secret any more, every attempt of the
// session still being checked, every attempt used up by wrong codes.
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../env';
import { ManualClock } from '../../test/manual-clock';
import { testSecondFactors } from '../../test/second-factor-support';
import { directoryOf } from '../../test/test-users';
import { captureLogs } from '../../test/upstream-client';
import type { AuditStore, NewAuditRecord } from '../audit/audit-store';
import { activeSession, SessionService } from '../sessions/session-service';
import { MemorySessionStore } from '../sessions/session-store';
import { createRateLimiters, memoryRateLimiters } from './rate-limits';
import { SecondFactorStepUp } from './step-up';
import type { TotpVerifier } from './totp';

const admin = { email: 'ada@example.test', role: 'admin' } as const;
/** What a person reads: a whole sentence, never empty (the wording is not pinned). */
const sentence = /^[A-Z].{3,}\.$/;

async function setUp(options: { secret?: string; gone?: boolean } = {}) {
  const clock = new ManualClock();
  const store = new MemorySessionStore(clock);
  const config = loadConfig({ DEMO_MODE: '1' });
  const sessions = new SessionService(store, clock, {
    cookie: { name: 'cc_session', secure: false },
    session: config.session,
    sessionSecret: 'a-secret-for-the-step-up-tests',
  });
  const users = await directoryOf(
    options.gone
      ? []
      : [
          {
            ...admin,
            passwordHash: 'unused',
            ...(options.secret ? { totpSecret: options.secret } : {}),
          },
        ],
  );
  // A verifier that takes any code: only what SecondFactorStepUp itself checks can refuse.
  const totp = { verify: async () => true } as unknown as TotpVerifier;
  const limiters = createRateLimiters(memoryRateLimiters, config.rateLimits, config.session);
  const records: NewAuditRecord[] = [];
  const audit = {
    append: async (record: NewAuditRecord) => {
      records.push(record);
      return { ...record, id: String(records.length), at: clock.now() };
    },
  } as unknown as AuditStore;
  const stepUp = new SecondFactorStepUp({
    sessions,
    ...(await testSecondFactors(users)),
    totp,
    limiters,
    audit,
    logger: captureLogs().logger,
  });
  const res = { cookie() {}, clearCookie() {} } as unknown as Response;
  const req = { headers: {}, requestId: 'req-step-up-1' } as unknown as Request;
  await sessions.start(req, res, admin, { steppedUp: false });
  const key = activeSession(req)?.key ?? '';
  return {
    stepUp,
    req,
    res,
    key,
    limiters,
    store,
    records,
    points: config.rateLimits.stepUpFailuresPerSession,
  };
}

describe('SecondFactorStepUp.require', () => {
  it.each([undefined, '123456'])(
    'without a loaded session (code %s) → 401 unauthenticated',
    async (code) => {
      const { stepUp, res } = await setUp({ secret: 'JBSWY3DPEHPK3PXQ' });
      const bare = { headers: {} } as Request;
      await expect(stepUp.require(bare, res, { totp: code })).rejects.toMatchObject({
        status: 401,
        code: 'unauthenticated',
        message: expect.stringMatching(sentence),
      });
    },
  );

  it('refuses any code for an account that no longer has a secret, and counts it as wrong', async () => {
    const { stepUp, req, res, key, limiters } = await setUp();
    await expect(stepUp.require(req, res, { totp: '123456' })).rejects.toMatchObject({
      status: 401,
      code: 'invalid_totp',
      message: expect.stringMatching(sentence),
    });
    expect((await limiters.stepUpFailures.get(key))?.consumedPoints).toBe(1);
  });

  it('refuses any code once the account is gone from the users file, and counts it as wrong', async () => {
    const { stepUp, req, res, key, limiters } = await setUp({ gone: true });
    await expect(stepUp.require(req, res, { totp: '123456' })).rejects.toMatchObject({
      status: 401,
      code: 'invalid_totp',
    });
    expect((await limiters.stepUpFailures.get(key))?.consumedPoints).toBe(1);
  });

  it('while every attempt is still being checked (none wrong yet) → 429, the session kept', async () => {
    const { stepUp, req, res, key, limiters, store, points } = await setUp({
      secret: 'JBSWY3DPEHPK3PXQ',
    });
    await limiters.stepUpAttempts.penalty(key, points);
    await expect(stepUp.require(req, res, { totp: '123456' })).rejects.toMatchObject({
      status: 429,
      code: 'rate_limited',
      retryAfterSeconds: 1,
      message: expect.stringMatching(sentence),
    });
    expect(await store.get(key)).toBeDefined();
  });

  it('with every attempt taken and one short of the wrong codes that end it → 429, the session kept', async () => {
    const { stepUp, req, res, key, limiters, store, points } = await setUp({
      secret: 'JBSWY3DPEHPK3PXQ',
    });
    await limiters.stepUpAttempts.penalty(key, points);
    await limiters.stepUpFailures.penalty(key, points - 1);
    await expect(stepUp.require(req, res, { totp: '123456' })).rejects.toMatchObject({
      status: 429,
    });
    expect(await store.get(key)).toBeDefined();
  });

  it('with every attempt used up by wrong codes → 401 session_ended and the session gone', async () => {
    const { stepUp, req, res, key, limiters, store, points } = await setUp({
      secret: 'JBSWY3DPEHPK3PXQ',
    });
    await limiters.stepUpAttempts.penalty(key, points);
    await limiters.stepUpFailures.penalty(key, points);
    await expect(stepUp.require(req, res, { totp: '123456' })).rejects.toMatchObject({
      status: 401,
      code: 'session_ended',
      message: expect.stringMatching(sentence),
    });
    expect(await store.get(key)).toBeUndefined();
    expect(req.actor).toBeUndefined();
  });

  it('without a code, past the step-up window → 401 step_up_required with a sentence', async () => {
    const { stepUp, req, res } = await setUp({ secret: 'JBSWY3DPEHPK3PXQ' });
    await expect(stepUp.require(req, res, {})).rejects.toMatchObject({
      status: 401,
      code: 'step_up_required',
      message: expect.stringMatching(sentence),
    });
  });

  it('a code that passes drops the old session key’s counters with it', async () => {
    const { stepUp, req, res, key, limiters } = await setUp({ secret: 'JBSWY3DPEHPK3PXQ' });
    await limiters.stepUpFailures.penalty(key, 2);
    await stepUp.require(req, res, { totp: '123456' });
    expect(activeSession(req)?.key).not.toBe(key);
    expect(await limiters.stepUpAttempts.get(key)).toBeNull();
    expect(await limiters.stepUpFailures.get(key)).toBeNull();
  });
});
