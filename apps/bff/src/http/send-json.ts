import type { ServerResponse } from 'node:http';
import type { Serializer } from '../platform/schemas/compiled-serializer';

/**
 * Answers with a JSON body: what Express's `res.json` does for our responses (no ETag, no
 * freshness check: every API answer is `no-store`), without its header parsing and copying.
 * Node itself drops the body of an answer to HEAD. `serialize`: the response shape's compiled
 * serializer (`compileSerializer`), where the route has one.
 */
export function sendJson<T>(
  res: ServerResponse,
  body: T,
  status = 200,
  serialize: Serializer<T> = JSON.stringify,
): void {
  const text = serialize(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
