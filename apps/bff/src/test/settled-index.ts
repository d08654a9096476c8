import { type IndexAnswer, indexAnswerSchema } from '@card-console/shared/api/transaction-index';
import type { TestApp, TestSession } from './harness';

/**
 * The index list for `query` once no sync is running: the first read starts the sync, and
 * reads are repeated (every 100 ms, for at most 30 s) until it is done.
 */
export async function settledIndexList(
  t: TestApp,
  session: TestSession,
  query = '',
): Promise<IndexAnswer> {
  const ask = async () =>
    indexAnswerSchema.parse(
      (await t.request.get(`/api/index/transactions${query}`).set(session.headers())).body,
    );
  let body = await ask();
  for (let tries = 0; body.freshness.syncing && tries < 300; tries++) {
    await new Promise((r) => setTimeout(r, 100));
    body = await ask();
  }
  return body;
}
