// The card editor's warning threshold for a large maximum is the deployment's, and every
// answer that describes a session carries it: sign-in, GET /api/session, the step-up.
import { LARGE_MAXIMUM_CENTS } from '@card-console/shared/api/cards';
import { sessionResponseSchema } from '@card-console/shared/api/session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/harness';
import {
  startTestIdentityProvider,
  type TestIdentityProvider,
} from '../../test/test-identity-provider';

const configured = 10_000_00;

describe('the large-maximum warning threshold in the session', () => {
  let idp: TestIdentityProvider;
  let t: TestApp;
  beforeAll(async () => {
    idp = await startTestIdentityProvider('http://localhost:3000');
    t = await startTestApp({
      sim: { transactions: 50 },
      identityProvider: idp,
      env: { limitWarningMaximumCents: configured },
    });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  it('is in the answer to a password sign-in and to GET /api/session', async () => {
    const { email, password } = t.credentials.finance;
    const signedIn = await t.request
      .post('/api/session')
      .set(t.apiHeaders())
      .send({ email, password });
    expect(signedIn.status).toBe(200);
    expect(sessionResponseSchema.parse(signedIn.body).largeMaximumCents).toBe(configured);

    const finance = await t.signIn('finance');
    const who = await t.request.get('/api/session').set(finance.headers());
    expect(who.status).toBe(200);
    expect(sessionResponseSchema.parse(who.body).largeMaximumCents).toBe(configured);
  });

  it("is in an admin's step-up answer", async () => {
    const admin = await t.signIn('admin');
    const stepped = await t.request
      .post('/api/session/step-up')
      .set(admin.headers())
      .send({ totp: t.adminTotp() });
    expect(stepped.status).toBe(200);
    expect(sessionResponseSchema.parse(stepped.body).largeMaximumCents).toBe(configured);
  });

  it('is in a single sign-on session as in a password one', async () => {
    const person = await t.signIn('finance', { via: 'sso' });
    const who = await t.request.get('/api/session').set(person.headers());
    expect(who.status).toBe(200);
    expect(sessionResponseSchema.parse(who.body)).toMatchObject({
      method: 'sso',
      largeMaximumCents: configured,
    });
  });
});

describe('the large-maximum warning threshold by default', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ sim: { transactions: 50 } });
  });
  afterAll(() => t.close());

  it('is $50,000 when the deployment sets none', async () => {
    const finance = await t.signIn('finance');
    const who = await t.request.get('/api/session').set(finance.headers());
    expect(sessionResponseSchema.parse(who.body).largeMaximumCents).toBe(LARGE_MAXIMUM_CENTS);
    expect(LARGE_MAXIMUM_CENTS).toBe(50_000_00);
  });
});
