// PATCH /api/accounting-categories/:id over HTTP: a change that leaves every value as it is (the
// code and name as the schema trims them) answers the category as it is, writes nothing (its
// updated_at stays) and records nothing; one value different is a change, recorded as before.
import { accountingCategorySchema } from '@card-console/shared/api/accounting-categories';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

let t: TestApp;
let admin: TestSession;

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.signIn('admin');
});
afterAll(async () => t.close());

const patch = (id: string, body: object) =>
  t.request.patch(`/api/accounting-categories/${id}`).set(admin.headers()).send(body);

async function recordsOf(requestId: string) {
  return (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId);
}

/** When the store last wrote the category (the API does not show it). */
async function updatedAt(id: string): Promise<string> {
  const [row] = await t.stores.sql.query<{ updated_at: Date | string }>(
    'SELECT updated_at FROM accounting_category WHERE id = $1',
    [id],
  );
  return new Date(row?.updated_at ?? 0).toISOString();
}

describe('PATCH /api/accounting-categories/:id', () => {
  it('with the code and name as they are: the category as it is, nothing written or recorded; one changed is a change', async () => {
    const created = await t.request
      .post('/api/accounting-categories')
      .set(admin.headers())
      .send({ code: 'UNCH-1', name: 'Software' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const category = accountingCategorySchema.parse(created.body);
    const written = await updatedAt(category.id);
    t.clock.set(t.clock.now() + 60_000);

    for (const body of [
      { code: 'UNCH-1', name: 'Software' },
      { code: ' UNCH-1 ', name: '  Software ' },
      { name: 'Software', archived: false },
    ]) {
      const same = await patch(category.id, body);
      expect(same.status, JSON.stringify(same.body)).toBe(200);
      expect(same.body).toEqual(category);
      expect(await recordsOf(same.headers['x-request-id'] ?? ''), JSON.stringify(body)).toEqual([]);
    }
    expect(await updatedAt(category.id)).toBe(written);

    const renamed = await patch(category.id, { code: 'UNCH-1', name: 'Software & SaaS' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toEqual({ ...category, name: 'Software & SaaS' });
    expect(await updatedAt(category.id)).not.toBe(written);
    expect(await recordsOf(renamed.headers['x-request-id'] ?? '')).toMatchObject([
      {
        action: 'category.update',
        outcome: 'success',
        target: category.id,
        before: { code: 'UNCH-1', name: 'Software', archived: false },
        after: { code: 'UNCH-1', name: 'Software & SaaS', archived: false },
      },
    ]);
  });

  it('for a category there is not: 404, recorded as failed, as before', async () => {
    const res = await patch('no-such-category', { name: 'Software' });
    expect(res.status).toBe(404);
    expect(await recordsOf(res.headers['x-request-id'] ?? '')).toMatchObject([
      { action: 'category.update', outcome: 'failed', detail: 'not_found' },
    ]);
  });
});
