import type { ServerResponse } from 'node:http';
import { codeForStatus } from './http-error';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendRaw(res, status, JSON.stringify(body), 'application/json; charset=utf-8', headers);
}

export function sendRaw(
  res: ServerResponse,
  status: number,
  text: string,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  const data = Buffer.from(text, 'utf8');
  res.writeHead(status, {
    // Like the real service: answers carry card data and must not be cached anywhere.
    'cache-control': 'no-store',
    ...headers,
    'content-type': contentType,
    'content-length': String(data.length),
  });
  res.end(data);
}

/** Every error leaves as `{ status, code, message }`. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code = codeForStatus(status),
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { status, code, message }, headers);
}
