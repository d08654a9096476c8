// The chart of accounts over HTTP, as an admin changes it. A category PATCH that leaves every
// value as it is (the code and name as the schema trims them) answers the category as it is,
// writes nothing (its updated_at stays) and records nothing; one value different is a change,
// recorded as before. A file imported is UTF-8 text, and its problems name the file's own lines.
import {
  accountingCategoryListSchema,
  accountingCategorySchema,
} from '@card-console/shared/api/accounting-categories';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { CategoryCodeTakenError } from '../notes';

let t: TestApp;
let admin: TestSession;

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.signIn('admin');
});
afterAll(async () => t.close());

/** The file's bytes as the SPA (or any API client) posts them. */
const importBytes = (bytes: Buffer, type = 'text/csv') =>
  t.request
    .post('/api/accounting-categories/import')
    .set(admin.headers())
    .set('content-type', type)
    .send(bytes);

const chart = async () =>
  accountingCategoryListSchema
    .parse((await t.request.get('/api/accounting-categories').set(admin.headers())).body)
    .items.map((c) => `${c.code} ${c.name}`);

/** Excel's "CSV (Comma delimited)" on Windows: Windows-1252, é as the single byte E9. */
const windows1252 = Buffer.from('Code,Name\n9810,Caf\xe9 et d\xe9placements\n', 'latin1');

describe('POST /api/accounting-categories/import: the text of the file', () => {
  it('refuses a Windows-1252 file sent as UTF-8 with a 400 saying how to save it, and imports nothing', async () => {
    const before = await chart();
    const res = await importBytes(windows1252);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    const problem = apiErrorBodySchema.parse(res.body);
    expect(problem.code).toBe('invalid_body');
    expect(res.body.detail).toBe(
      'Nothing was imported: the file is not UTF-8 text (line 2 has characters that could not be read). In Excel, save it as "CSV UTF-8 (Comma delimited)" and import that file.',
    );
    expect(await chart()).toEqual(before);
    expect((await chart()).some((c) => c.startsWith('9810'))).toBe(false);
  });

  it('reads the same bytes right when the request says they are Windows-1252', async () => {
    const res = await importBytes(windows1252, 'text/csv; charset=windows-1252');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ created: 1 });
    expect(await chart()).toContain('9810 Café et déplacements');
  });

  it('takes UTF-8 with the byte order mark Excel\'s "CSV UTF-8" writes', async () => {
    const res = await importBytes(
      Buffer.from('\uFEFFCode,Name\r\n9811,Frais bancaires à l’étranger\r\n', 'utf8'),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await chart()).toContain('9811 Frais bancaires à l’étranger');
  });

  it("names a faulty row by the file's own line, blank lines counted, and imports none of it", async () => {
    const before = await chart();
    const res = await importBytes(Buffer.from('Code,Name\n\n\n9800,Good\n\n,Missing code\n'));
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('Nothing was imported: line 6: code is missing.');
    expect(await chart()).toEqual(before);
  });
});

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

describe('POST /api/accounting-categories/import: refused as a whole', () => {
  it('is recorded as failed, and a code taken is named', async () => {
    // A file refused by the store (a code another admin's change took meanwhile, the database
    // down): nothing of it saved, and the trail says it was tried.
    const notes = await t.stores.notes();
    const importing = notes.importCategories;
    notes.importCategories = async () => {
      throw new CategoryCodeTakenError('6100');
    };
    try {
      const res = await importBytes(Buffer.from('Code,Name\n6100,Software\n'));
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body).toMatchObject({
        code: 'category_code_taken',
        detail: 'Another accounting category already has the code “6100”. Use a different code.',
      });
      expect(await recordsOf(res.headers['x-request-id'] ?? '')).toMatchObject([
        { action: 'category.create', outcome: 'failed', detail: 'import: category_code_taken' },
      ]);
    } finally {
      notes.importCategories = importing;
    }
  });
});

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
