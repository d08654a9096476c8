import { metaResponseSchema } from '@card-console/shared/api/meta';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/harness';
import { totpCodeAt } from '../../test/totp-source';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 10 } });
});
afterAll(() => t.close());

describe('GET /api/meta in demo mode', () => {
  it('shows the two demo accounts, the admin with a TOTP secret and its otpauth URI', async () => {
    const res = await t.request.get('/api/meta').set(t.apiHeaders());
    const meta = metaResponseSchema.parse(res.body);
    expect(meta.mode).toBe('demo');
    expect(meta.demoAccounts).toEqual([
      { email: 'finance@demo.test', role: 'finance', password: 'demo-password' },
      {
        email: 'admin@demo.test',
        role: 'admin',
        password: 'demo-password',
        totpSecret: 'JBSWY3DPEHPK3PXP',
        otpauthUri:
          'otpauth://totp/Card%20Console:admin%40demo.test?secret=JBSWY3DPEHPK3PXP&issuer=Card%20Console',
      },
    ]);
  });

  it('lets a person sign in with exactly what it shows', async () => {
    const meta = metaResponseSchema.parse(
      (await t.request.get('/api/meta').set(t.apiHeaders())).body,
    );
    const admin = meta.demoAccounts?.find((a) => a.role === 'admin');
    const res = await t.request
      .post('/api/session')
      .set(t.apiHeaders())
      .send({
        email: admin?.email,
        password: admin?.password,
        totp: totpCodeAt(admin?.totpSecret ?? '', t.clock.now()),
      });
    expect(res.status).toBe(200);
  });
});
