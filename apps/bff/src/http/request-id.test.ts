import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdsCardNumber } from '../platform/security/card-number-ids';
import { startTestApp, type TestApp } from '../test/harness';
import { testPan } from '../test/test-pan';
import { newRequestId } from './request-id';

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
  });
});
