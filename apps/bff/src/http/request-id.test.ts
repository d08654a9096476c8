import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRequestId } from '../platform/request-ids';
import { holdsCardNumber } from '../platform/security/card-number-ids';
import { startTestApp, type TestApp } from '../test/harness';
import { testPan } from '../test/test-pan';

describe('request ids', () => {
  it('a generated id is a UUID that never reads as a card number (20,000 drawn)', () => {
    // Plain random UUIDs read as one a few times in ten thousand (their digit groups).
    const ids = Array.from({ length: 20_000 }, newRequestId);
    expect(ids.filter(holdsCardNumber)).toEqual([]);
    expect(
      ids.every((id) =>
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id),
      ),
    ).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  describe('over HTTP', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close());

    it("keeps a caller's id-shaped X-Request-Id, and replaces one holding a card number", async () => {
      const kept = await t.request.get('/healthz').set('X-Request-Id', 'proxy-7f3a-0001');
      expect(kept.headers['x-request-id']).toBe('proxy-7f3a-0001');

      const pan = testPan(3);
      const grouped = pan.match(/.{1,4}/g)?.join('-') ?? pan;
      const replaced = await t.request.get('/healthz').set('X-Request-Id', `id-${grouped}`);
      expect(replaced.headers['x-request-id']).not.toContain(grouped);
      expect(holdsCardNumber(String(replaced.headers['x-request-id']))).toBe(false);
      expect(t.logs.join('\n')).not.toContain(pan.slice(-8));
    });

    it.each([
      ['dots', '.'],
      ['underscores', '_'],
      ['colons', ':'],
    ])(
      'replaces an X-Request-Id holding a card number in groups joined by %s: never echoed, logged or audited',
      async (_how, separator) => {
        const pan = testPan(44);
        const incoming = `req-${pan.match(/.{4}/g)?.join(separator)}`;
        const finance = await t.signIn('finance');
        const cardId = t.sim.data.cards()[0]?.id ?? '';
        // Finance may not reveal: a refusal the audit trail records with the request id.
        const res = await t.request
          .post(`/api/cards/${cardId}/reveal`)
          .set(finance.headers({ 'X-Request-Id': incoming }))
          .send({ reason: 'checking' });
        expect(res.status).toBe(403);
        const id = String(res.headers['x-request-id']);
        expect(id).not.toBe(incoming);
        expect(res.body.requestId).toBe(id);
        expect(holdsCardNumber(id)).toBe(false);
        const audited = (await t.audit.list({ limit: 1000 })).items.filter(
          (r) => r.requestId === id,
        );
        expect(audited).toMatchObject([{ action: 'access.denied', outcome: 'denied' }]);
        const lastGroups = incoming.slice(-9);
        expect(t.logs.join('\n')).not.toContain(lastGroups);
        expect(await readFile(t.audit.path, 'utf8')).not.toContain(lastGroups);
      },
    );

    it('keeps an id-shaped X-Request-Id with dots, underscores or colons that is no card number', async () => {
      for (const incoming of ['lb.2026.11.26_0001', 'trace:00f067aa:0001', 'req_12.30.45']) {
        const res = await t.request.get('/healthz').set('X-Request-Id', incoming);
        expect(res.headers['x-request-id']).toBe(incoming);
      }
    });
  });
});
