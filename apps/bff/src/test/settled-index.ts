import {
  type IndexPage,
  type IndexTotalsAnswer,
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import type { z } from 'zod';
import type { TestApp, TestSession } from './harness';

/**
 * An answer of the index for `path` once no sync is running: the first read starts the sync,
 * and reads are repeated (every 100 ms, for at most 30 s) until it is done.
 */
async function settled<T extends { freshness: { syncing: boolean } }>(
  t: TestApp,
  session: TestSession,
  path: string,
  schema: z.ZodType<T>,
): Promise<T> {
  const ask = async () => schema.parse((await t.request.get(path).set(session.headers())).body);
  let body = await ask();
  for (let tries = 0; body.freshness.syncing && tries < 300; tries++) {
    await new Promise((r) => setTimeout(r, 100));
    body = await ask();
  }
  return body;
}

/** The index's first page of rows for `query` (`?status=declined…`), once synced. */
export function settledIndexList(t: TestApp, session: TestSession, query = ''): Promise<IndexPage> {
  return settled(t, session, `/api/index/transactions${query}`, indexPageSchema);
}

/** The figures of the set `query` gives (`?by=card…`), once synced. */
export function settledIndexTotals(
  t: TestApp,
  session: TestSession,
  query = '',
): Promise<IndexTotalsAnswer> {
  return settled(t, session, `/api/index/transactions/totals${query}`, indexTotalsAnswerSchema);
}
