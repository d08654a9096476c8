// Webhook targets over real HTTP: admins only, the URL checked against the operator's policy
// (https and public addresses unless allowed), the secret in the creation's answer only, a
// rule naming a target that does not exist refused, a target in use kept; every change audited.
import {
  alertRuleSchema,
  webhookTargetCreatedSchema,
  webhookTargetListSchema,
} from '@card-console/shared/api/alerts';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

let t: TestApp;
let admin: TestSession;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 50 } });
  [admin, finance] = [await t.signIn('admin'), await t.signIn('finance')];
});
afterAll(async () => t.close());

const add = (session: TestSession, body: object) =>
  t.request.post('/api/alerts/webhooks').set(session.headers()).send(body);
const list = async () => {
  const res = await t.request.get('/api/alerts/webhooks').set(admin.headers());
  expect(res.status).toBe(200);
  return webhookTargetListSchema.parse(res.body).items;
};
const auditFor = async (requestId: string | undefined) =>
  (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId);

describe('webhook targets over HTTP', () => {
  it('adds a target with a secret shown once, lists it without, and audits the change', async () => {
    const res = await add(admin, {
      name: ' Finance channel ',
      url: 'https://hooks.example.test/a',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const created = webhookTargetCreatedSchema.parse(res.body);
    expect(created).toMatchObject({ name: 'Finance channel', url: 'https://hooks.example.test/a' });
    expect(created.secret).toMatch(/^[0-9a-f]{64}$/);

    const listed = await t.request.get('/api/alerts/webhooks').set(admin.headers());
    expect(listed.text).not.toContain(created.secret);
    expect((await list()).find((x) => x.id === created.id)).toEqual({
      id: created.id,
      name: 'Finance channel',
      url: 'https://hooks.example.test/a',
      createdBy: t.credentials.admin.email,
      createdAt: expect.any(String),
    });
    const [record] = await auditFor(res.headers['x-request-id']);
    expect(record).toMatchObject({
      action: 'webhookTarget.create',
      outcome: 'success',
      target: created.id,
      // Where it sends, not its path (a receiver's secret may sit there).
      after: { name: 'Finance channel', destination: 'https://hooks.example.test' },
    });
    expect(JSON.stringify(await t.audit.list({ limit: 1000 }))).not.toContain(created.secret);
  });

  it('one name, one target: a create sent twice, or under the same name in another case, is a 409 naming it; at once, one is made', async () => {
    const first = await add(admin, { name: 'Payables', url: 'https://hooks.example.test/p' });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    for (const body of [
      { name: 'Payables', url: 'https://hooks.example.test/p' },
      { name: ' PAYABLES ', url: 'https://hooks.example.test/other' },
    ]) {
      const again = await add(admin, body);
      expect(again.status, JSON.stringify(again.body)).toBe(409);
      expect(again.body).toMatchObject({ code: 'webhook_target_exists' });
      expect(again.body.detail).toContain('A webhook target named “Payables” exists');
      expect(await auditFor(again.headers['x-request-id'])).toMatchObject([
        {
          action: 'webhookTarget.create',
          outcome: 'denied',
          detail: 'webhook_target_exists',
          after: { destination: 'https://hooks.example.test' },
        },
      ]);
    }
    expect((await list()).filter((x) => x.name.toLowerCase() === 'payables')).toHaveLength(1);

    const racing = await Promise.all(
      Array.from({ length: 6 }, () =>
        add(admin, { name: 'Receivables', url: 'https://hooks.example.test/r' }),
      ),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect((await list()).filter((x) => x.name === 'Receivables')).toHaveLength(1);
  });

  it('refuses http:, loopback and private addresses in any spelling, local and metadata names and credentials in the URL (400), audited', async () => {
    for (const [url, words] of [
      ['http://hooks.example.test/a', 'https'],
      ['https://127.0.0.1/a', 'non-public'],
      ['https://[::1]/a', 'non-public'],
      ['https://10.1.2.3/a', 'non-public'],
      ['https://169.254.169.254/latest', 'non-public'],
      ['https://user:pass@hooks.example.test/a', 'no user name'],
      ['ftp://hooks.example.test/a', 'https'],
      ['not a url', 'URL'],
      ['https://localhost/a', 'this machine, the local network'],
      ['https://localhost./a', 'this machine, the local network'],
      ['https://db.internal/a', 'this machine, the local network'],
      ['https://printer.local/a', 'this machine, the local network'],
      ['https://metadata.google.internal/computeMetadata/v1/', 'cloud metadata service'],
      ['https://metadata.example.com/latest', 'cloud metadata service'],
      ['https://[::127.0.0.1]/a', 'non-public'],
      ['https://[::ffff:127.0.0.1]/a', 'non-public'],
      ['https://0177.0.0.1/a', 'non-public'],
      ['https://0x7f000001/a', 'non-public'],
    ] as const) {
      const res = await add(admin, { name: 'Bad', url });
      expect(res.status, url).toBe(400);
      expect(res.body.detail, url).toContain(words);
    }
    expect((await list()).map((x) => x.name)).not.toContain('Bad');
    const res = await add(admin, { name: 'Bad', url: 'https://127.0.0.1/a' });
    const [record] = await auditFor(res.headers['x-request-id']);
    expect(record).toMatchObject({
      action: 'webhookTarget.create',
      outcome: 'failed',
      detail: 'private_address',
      after: { name: 'Bad', destination: 'https://127.0.0.1' },
    });
    const metadata = await add(admin, { name: 'Bad', url: 'https://metadata.example.com:8443/x' });
    expect((await auditFor(metadata.headers['x-request-id']))[0]?.after).toEqual({
      name: 'Bad',
      destination: 'https://metadata.example.com:8443',
    });
    const named = await add(admin, { name: 'Bad', url: 'https://localhost/a' });
    expect((await auditFor(named.headers['x-request-id']))[0]).toMatchObject({
      action: 'webhookTarget.create',
      outcome: 'failed',
      detail: 'local_name',
    });
  });

  it('a control character (a NUL, which the database refuses) in a name or URL is a 400 naming the field, never a 500', async () => {
    const before = (await list()).length;
    for (const [body, message] of [
      [
        { name: 'a\u0000b', url: 'https://hooks.example.test/n' },
        'name: name must not contain control characters',
      ],
      [
        { name: 'a\nb', url: 'https://hooks.example.test/n' },
        'name: name must not contain control characters',
      ],
      [
        { name: '\u202eab', url: 'https://hooks.example.test/n' },
        'name: name must not contain text-direction',
      ],
      [
        { name: 'Nul', url: 'https://hooks.example.test/a\u0000b' },
        'url: url must not contain control characters',
      ],
      [
        { name: 'Tab', url: 'https://hooks.exa\tmple.test/a' },
        'url: url must not contain control characters',
      ],
    ] as const) {
      const res = await add(admin, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(apiErrorBodySchema.parse(res.body)).toMatchObject({ code: 'invalid_body' });
      expect(res.body.detail, JSON.stringify(body)).toContain(message);
    }
    expect(await list()).toHaveLength(before);
  });

  it('is for admins only: finance gets 403 and changes nothing', async () => {
    const res = await add(finance, { name: 'Mine', url: 'https://hooks.example.test/m' });
    expect(res.status).toBe(403);
    expect((await t.request.get('/api/alerts/webhooks').set(finance.headers())).status).toBe(403);
    expect((await list()).map((x) => x.name)).not.toContain('Mine');
  });

  it('refuses a rule naming no existing target, and keeps a target a rule sends to', async () => {
    const missing = await t.request
      .post('/api/alerts/rules')
      .set(admin.headers())
      .send({
        kind: 'declined',
        name: 'Hooked',
        channels: { inbox: false, email: false, webhookTargetId: 'no-such-target' },
      });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toContain('no such webhook target');

    const target = webhookTargetCreatedSchema.parse(
      (await add(admin, { name: 'Ops', url: 'https://hooks.example.test/ops' })).body,
    );
    const ruleRes = await t.request
      .post('/api/alerts/rules')
      .set(admin.headers())
      .send({
        kind: 'declined',
        name: 'Hooked',
        channels: { inbox: false, email: false, webhookTargetId: target.id },
      });
    expect(ruleRes.status, JSON.stringify(ruleRes.body)).toBe(201);
    const rule = alertRuleSchema.parse(ruleRes.body);

    const inUse = await t.request.delete(`/api/alerts/webhooks/${target.id}`).set(admin.headers());
    expect(inUse.status).toBe(400);
    expect(inUse.body.detail).toContain('Hooked');
    expect((await list()).map((x) => x.id)).toContain(target.id);

    const gone = await t.request
      .delete(`/api/alerts/rules/${rule.id}?version=${rule.version}`)
      .set(admin.headers());
    expect(gone.status).toBe(204);
    const removed = await t.request
      .delete(`/api/alerts/webhooks/${target.id}`)
      .set(admin.headers());
    expect(removed.status).toBe(204);
    expect((await list()).map((x) => x.id)).not.toContain(target.id);
    const [record] = await auditFor(removed.headers['x-request-id']);
    expect(record).toMatchObject({
      action: 'webhookTarget.delete',
      outcome: 'success',
      before: { name: 'Ops', destination: new URL(target.url).origin },
    });
    const again = await t.request.delete(`/api/alerts/webhooks/${target.id}`).set(admin.headers());
    expect(again.status).toBe(404);
  });
});

describe('a recent second factor', () => {
  it('is needed to add or remove a target, as for People: 401 step_up_required, nothing changed, audited; a TOTP check lets the same request through', async () => {
    const session = await t.signIn('admin');
    const kept = await add(session, { name: 'Kept', url: 'https://hooks.example.test/kept' });
    expect(kept.status).toBe(201);
    // The check at sign-in lapses five minutes on, the session itself does not.
    t.clock.advance(5 * 60_000 + 1);

    const late = await add(session, { name: 'Late', url: 'https://hooks.example.test/late' });
    expect(late.status).toBe(401);
    expect(apiErrorBodySchema.parse(late.body)).toMatchObject({
      code: 'step_up_required',
      secondFactor: { methods: expect.arrayContaining(['totp']) },
    });
    const removal = await t.request
      .delete(`/api/alerts/webhooks/${kept.body.id}`)
      .set(session.headers());
    expect(removal.status).toBe(401);
    expect(removal.body.code).toBe('step_up_required');
    const names = (
      await t.request.get('/api/alerts/webhooks').set(session.headers())
    ).body.items.map((x: { name: string }) => x.name);
    expect(names).toContain('Kept');
    expect(names).not.toContain('Late');
    expect(await auditFor(late.headers['x-request-id'])).toMatchObject([
      {
        action: 'webhookTarget.create',
        outcome: 'denied',
        detail: 'step_up_required',
        after: { name: 'Late', destination: 'https://hooks.example.test' },
      },
    ]);
    expect(await auditFor(removal.headers['x-request-id'])).toMatchObject([
      {
        action: 'webhookTarget.delete',
        outcome: 'denied',
        detail: 'step_up_required',
        target: kept.body.id,
      },
    ]);
    // A change refused anyway is refused first, without asking for the check.
    expect((await add(session, { name: 'Bad', url: 'https://localhost/x' })).status).toBe(400);
    expect(
      (await t.request.delete('/api/alerts/webhooks/no-such-target').set(session.headers())).status,
    ).toBe(404);

    const stepped = await t.request
      .post('/api/session/step-up')
      .set(session.headers())
      .send({ totp: t.adminTotp() });
    expect(stepped.status, JSON.stringify(stepped.body)).toBe(200);
    session.absorb(stepped);
    expect(
      (await add(session, { name: 'Late', url: 'https://hooks.example.test/late' })).status,
    ).toBe(201);
    const removed = await t.request
      .delete(`/api/alerts/webhooks/${kept.body.id}`)
      .set(session.headers());
    expect(removed.status).toBe(204);
  });
});
