import {
  type IndexPage,
  type IndexTotalsAnswer,
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import { expect } from 'vitest';
import type { TestApp, TestSession } from './harness';

/**
 * The answer at `path` (the index's list, its totals, the month close's counts) once no sync is
 * running: the first read starts the sync, and reads are repeated (every 100 ms, at most 300
 * times) until it is done. Every read must be a 200 (its body and the app's error lines say why
 * not); a sync that never ends fails the test.
 */
export async function settledAnswer<T extends { freshness: { syncing: boolean } }>(
  t: TestApp,
  session: TestSession,
  path: string,
  parse: (body: unknown) => T,
): Promise<T> {
  for (let tries = 0; tries < 300; tries++) {
    const res = await t.request.get(path).set(session.headers());
    expect(
      res.status,
      `${res.text.slice(0, 300)}\n${t.logs
        .filter((l) => /error/i.test(l))
        .join('\n')
        .slice(0, 2000)}`,
    ).toBe(200);
    const body = parse(res.body);
    if (!body.freshness.syncing) return body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the index never finished its sync (${path})`);
}

/** The index's first page of rows for `query` (`?status=declined…`), once synced. */
export function settledIndexList(t: TestApp, session: TestSession, query = ''): Promise<IndexPage> {
  return settledAnswer(t, session, `/api/index/transactions${query}`, (body) =>
    indexPageSchema.parse(body),
  );
}

/** The figures of the set `query` gives (`?by=card…`), once synced. */
export function settledIndexTotals(
  t: TestApp,
  session: TestSession,
  query = '',
): Promise<IndexTotalsAnswer> {
  return settledAnswer(t, session, `/api/index/transactions/totals${query}`, (body) =>
    indexTotalsAnswerSchema.parse(body),
  );
}
