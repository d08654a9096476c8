// A refusal stands when its audit record cannot be written: the person still gets the 4xx (never
// a 500), a session ended for wrong codes is still ended, and an operator sees the lost record
// in the log with the request id.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import { totpCodeAt } from '../test/totp-source';

let t: TestApp | undefined;
afterEach(() => t?.close());

interface LogLine {
  level: number;
  msg?: string;
  requestId?: string;
  err?: { message?: string };
}

function errorLines(app: TestApp, requestId: string): LogLine[] {
  return app.logs
    .map((text) => JSON.parse(text) as LogLine)
    .filter((line) => line.requestId === requestId && line.level >= 50);
}

function failAudit(app: TestApp) {
  vi.spyOn(app.audit, 'append').mockRejectedValue(new Error('audit disk full'));
}

describe('when the audit trail cannot be written', () => {
  it('a call the role may not make is still refused 403, and the lost record is logged', async () => {
    const app = await startTestApp({ sim: { transactions: 20 } });
    t = app;
    const finance = await app.signIn('finance');
    const cardId = app.sim.data.cards()[0]?.id ?? '';
    failAudit(app);

    const res = await app.request
      .patch(`/api/cards/${cardId}`)
      .set(finance.headers())
      .send({ name: 'Not allowed' });

    expect(res.status).toBe(403);
    const body = apiErrorBodySchema.parse(res.body);
    expect(body.code).toBe('forbidden');
    expect(errorLines(app, body.requestId)).toMatchObject([
      { msg: 'audit append failed for a refusal', err: { message: 'audit disk full' } },
    ]);
  });

  it('the wrong code that ends a session still ends it, and the lost record is logged', async () => {
    const app = await startTestApp({ sim: { transactions: 20 } });
    t = app;
    const admin = await app.signIn('admin');
    const cardId = app.sim.data.cards()[0]?.id ?? '';
    app.clock.advance(6 * 60_000);
    const secret = app.credentials.admin.totpSecret ?? '';
    const valid = new Set([-30_000, 0, 30_000].map((d) => totpCodeAt(secret, app.clock.now() + d)));
    const wrong = ['111111', '222222', '333333', '444444', '555555', '666666', '777777'].filter(
      (code) => !valid.has(code),
    );
    failAudit(app);

    const answers = [];
    for (const code of wrong.slice(0, 5)) {
      answers.push(
        await app.request
          .post(`/api/cards/${cardId}/reveal`)
          .set(admin.headers())
          .send({ reason: 'card holder on the phone', totp: code }),
      );
    }

    expect(answers.map((res) => res.body.code)).toEqual([
      'invalid_totp',
      'invalid_totp',
      'invalid_totp',
      'invalid_totp',
      'session_ended',
    ]);
    const last = answers[4];
    expect(last?.status).toBe(401);
    expect(String(last?.headers['set-cookie'])).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect((await app.request.get('/api/session').set(admin.headers())).status).toBe(401);
    expect(errorLines(app, last?.body.requestId).map((line) => line.msg)).toContain(
      'audit append failed for a session ended after wrong codes',
    );
  });
});
