import { accountingCategoryListSchema } from '@card-console/shared/api/accounting-categories';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

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
