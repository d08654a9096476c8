import type { ServerResponse } from 'node:http';

/**
 * Answers with a JSON body: what Express's `res.json` does for our responses (no ETag, no
 * freshness check: every API answer is `no-store`), without its header parsing and copying.
 * Node itself drops the body of an answer to HEAD.
 */
export function sendJson(res: ServerResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
