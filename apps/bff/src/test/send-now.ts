import type { Response, Test } from 'supertest';

/**
 * Sends a supertest request at once (awaiting a Test sends it only when first awaited), so a
 * loop of these puts every request in flight together. Resolves with the answer, whatever
 * its status.
 */
export function sendNow(test: Test): Promise<Response> {
  return new Promise((resolve, reject) => {
    test.end((error, res) => (res ? resolve(res) : reject(error)));
  });
}

/** The first answer `matches` accepts, or undefined once every one has come without a match. */
export function firstAnswer(
  pending: readonly Promise<Response>[],
  matches: (res: Response) => boolean,
): Promise<Response | undefined> {
  return new Promise((resolve, reject) => {
    for (const p of pending) p.then((res) => matches(res) && resolve(res), reject);
    Promise.all(pending).then(() => resolve(undefined), reject);
  });
}
