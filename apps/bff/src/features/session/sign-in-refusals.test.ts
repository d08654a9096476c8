// signIn straight through its dependencies, for the refusals HTTP cannot reach: an admin
// record without a second-factor secret, a full hashing queue, a hashing failure that is not
// about being busy.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../env';
import type { AuditStore, NewAuditRecord } from '../../platform/audit/audit-store';
import { createRateLimiters, memoryRateLimiters } from '../../platform/security/rate-limits';
import type { TotpVerifier } from '../../platform/security/totp';
import { HashingBusyError, type HashingGate } from '../../platform/users/hashing-gate';
import { demoScrypt, hashPassword } from '../../platform/users/password-hash';
import type { UserDirectory } from '../../platform/users/user-directory';
import { testSecondFactors } from '../../test/second-factor-support';
import { directoryOf } from '../../test/test-users';
import { captureLogs } from '../../test/upstream-client';
import { type SignInAttempt, signIn } from './sign-in-service';

const password = 'correct horse battery';
const adminEmail = 'no-secret.admin@example.test';
let users: UserDirectory;
beforeAll(async () => {
  const passwordHash = await hashPassword(password, demoScrypt);
  // The users file insists an admin has a secret; this record stands for one that slipped by.
  users = await directoryOf([
    { email: adminEmail, role: 'admin', passwordHash },
    { email: 'finance@example.test', role: 'finance', passwordHash },
  ]);
});

async function setUp(hashing: HashingGate) {
  const records: NewAuditRecord[] = [];
  const audit = {
    append: async (record: NewAuditRecord) => {
      records.push(record);
      return { ...record, id: String(records.length), at: 0 };
    },
    list: async () => ({ items: [] }),
  } as unknown as AuditStore;
  // A verifier that would take any code: only the missing secret can refuse.
  const totp = { verify: async () => true } as unknown as TotpVerifier;
  const config = loadConfig({ DEMO_MODE: '1' });
  const limiters = createRateLimiters(memoryRateLimiters, config.rateLimits, config.session);
  const deps = {
    users,
    totp,
    limiters,
    hashing,
    audit,
    logger: captureLogs().logger,
    ...(await testSecondFactors(users)),
  };
  return { deps, records, limiters };
}

/** What a person reads: a whole sentence, never empty (the wording is not pinned). */
const sentence = /^[A-Z].{3,}\.$/;
const direct: HashingGate = { run: (work) => work() };
const attempt = (over: Partial<SignInAttempt> = {}): SignInAttempt => ({
  email: adminEmail,
  password,
  totp: '123456',
  address: '192.0.2.1',
  requestId: 'req-sign-in-1',
  ...over,
});

describe('signIn', () => {
  it('a wrong password: 401 with the one sentence a person sees for any wrong credential, audited', async () => {
    const { deps, records } = await setUp(direct);
    await expect(
      signIn(deps, attempt({ email: 'finance@example.test', password: 'wrong' })),
    ).rejects.toMatchObject({
      status: 401,
      code: 'invalid_credentials',
      message: 'Wrong email, password or code.',
    });
    expect(records).toEqual([
      expect.objectContaining({
        actor: 'finance@example.test',
        role: 'finance',
        action: 'session.signIn',
        outcome: 'failed',
        detail: 'bad email or password',
        requestId: 'req-sign-in-1',
      }),
    ]);
  });

  it('an unknown email is audited as an unknown account, never by the text typed', async () => {
    const { deps, records } = await setUp(direct);
    await expect(
      signIn(deps, attempt({ email: 'typed-a-password@example.test' })),
    ).rejects.toMatchObject({ status: 401, code: 'invalid_credentials' });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ actor: '(unknown account)', outcome: 'failed' });
    expect(records[0]?.role).toBeUndefined();
  });

  it('refuses an admin whose record has no second-factor secret, whatever the code', async () => {
    const { deps, records } = await setUp(direct);
    await expect(signIn(deps, attempt())).rejects.toMatchObject({
      status: 401,
      code: 'invalid_credentials',
    });
    expect(records).toEqual([
      expect.objectContaining({
        actor: adminEmail,
        role: 'admin',
        outcome: 'failed',
        detail: 'bad second-factor code',
      }),
    ]);
  });

  it('a full hashing queue → 429 with a 1-second retry hint, and the attempt counts nowhere', async () => {
    const busy: HashingGate = { run: () => Promise.reject(new HashingBusyError()) };
    const { deps, records, limiters } = await setUp(busy);
    const who = attempt({ email: 'finance@example.test', totp: undefined });
    await expect(signIn(deps, who)).rejects.toMatchObject({
      status: 429,
      code: 'rate_limited',
      retryAfterSeconds: 1,
      message: expect.stringMatching(sentence),
    });
    expect(records).toEqual([]);
    const held = await Promise.all([
      limiters.signInPerAccountAddress.get(`${who.address}|${who.email}`),
      limiters.signInPerAddress.get(who.address),
      limiters.signInPerAccount.get(who.email),
    ]);
    expect(held.map((res) => res?.consumedPoints ?? 0)).toEqual([0, 0, 0]);
  });

  it('a hashing failure other than a full queue is passed on as it is, not turned into a 429', async () => {
    const broken = new Error('scrypt failed');
    const failing: HashingGate = { run: () => Promise.reject(broken) };
    const { deps, records } = await setUp(failing);
    await expect(signIn(deps, attempt({ email: 'finance@example.test' }))).rejects.toBe(broken);
    expect(records).toEqual([]);
  });

  it('an admin’s right password without a code → 401 second_factor_required with a sentence, nothing audited', async () => {
    const { deps, records } = await setUp(direct);
    await expect(signIn(deps, attempt({ totp: undefined }))).rejects.toMatchObject({
      status: 401,
      code: 'second_factor_required',
      message: expect.stringMatching(sentence),
      // This admin has no secret: no factor to offer, and the sentence says so.
      extensions: { secondFactor: { methods: [] } },
    });
    expect(records).toEqual([]);
  });
});
