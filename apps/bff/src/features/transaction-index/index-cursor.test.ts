// GET /api/index/transactions?cursor=…: a cursor the list gave pages on; anything else, however
// it was made, is a 400 that names the cursor, never a 500 and never a page.
import { indexPageSchema } from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledIndexList } from '../../test/settled-index';

let t: TestApp;
let finance: TestSession;
let next: string;
let subAccountId: string;

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 120, subAccounts: 1 } });
  finance = await t.signIn('finance');
  const first = await settledIndexList(t, finance, '?limit=5');
  next = first.nextCursor as string;
  subAccountId = first.items[0]?.subAccountId as string;
}, 60_000);
afterAll(async () => t?.close());

const ask = (query: string) =>
  t.request.get(`/api/index/transactions${query}`).set(finance.headers());
const b64 = (text: string) => Buffer.from(text).toString('base64url');
const position = (parts: unknown[]) => b64(JSON.stringify(parts));
/** `text` with its character at `at` replaced by another one of the same alphabet. */
const changedAt = (text: string, at: number) =>
  `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;

describe('the index list’s page cursor', () => {
  it('a cursor the list gave pages on, for the order it was given for', async () => {
    expect(next).toMatch(/^[\w-]+\.[\w-]{22}$/);
    const res = await ask(`?limit=5&cursor=${encodeURIComponent(next)}`);
    expect(res.status).toBe(200);
    const page = indexPageSchema.parse(res.body);
    expect(page.items).toHaveLength(5);
    const firstIds = (await settledIndexList(t, finance, '?limit=10')).items.map((x) => x.id);
    expect(page.items.map((x) => x.id)).toEqual(firstIds.slice(5));
  });

  it.each([
    ['not base64', () => 'not base64 !'],
    ['base64 of broken JSON', () => b64('{"a":')],
    ['base64 of other JSON', () => b64('{"order":"date.desc"}')],
    ['the right shape with numbers', () => position(['date.desc', 1, 2, 3])],
    ['a date the engine refuses', () => position(['date.desc', '1', subAccountId, 'x'])],
    [
      'a day that does not exist',
      () => position(['date.desc', '2026-02-30T00:00:00.000Z', subAccountId, 'x']),
    ],
    [
      'an id holding SQL',
      () => position(['date.desc', '2026-11-26T12:00:00.000Z', subAccountId, "x' OR '1'='1"]),
    ],
    [
      'an id holding NUL',
      () => position(['date.desc', '2026-11-26T12:00:00.000Z', subAccountId, 'a\u0000b']),
    ],
    ['a cursor given without its seal', () => next.slice(0, next.lastIndexOf('.'))],
    ['a cursor given, one character of its position changed', () => changedAt(next, 3)],
    ['a cursor given, one character of its seal changed', () => changedAt(next, next.length - 1)],
    ['a cursor given, with more after it', () => `${next}A`],
    ['a seal alone', () => next.slice(next.lastIndexOf('.'))],
  ])('%s is a 400 that names the cursor', async (_name, cursor) => {
    const res = await ask(`?cursor=${encodeURIComponent(cursor())}`);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code: 'invalid_query' });
    expect(res.body.detail).toMatch(/^cursor: not a page position/);
  });

  it('a cursor given for one order is a 400 with another', async () => {
    const res = await ask(`?sort=amount&cursor=${encodeURIComponent(next)}`);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/cursor: .*another order/);
  });
});
