import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { badRequest, HttpError } from './http-error';

export const MAX_BODY_BYTES = 16 * 1024;
/** Past this we stop reading and close the connection instead of draining a flood. */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

function describe(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/** Query string to a plain object; a repeated parameter is a 400, then the schema decides. */
export function parseQuery<S extends z.ZodType>(search: URLSearchParams, schema: S): z.output<S> {
  const seen = new Map<string, string>();
  for (const [key, value] of search) {
    if (seen.has(key)) throw badRequest(`query parameter "${key}" is repeated`);
    seen.set(key, value);
  }
  // fromEntries defines own properties, so "__proto__" is just an unknown key here.
  const parsed = schema.safeParse(Object.fromEntries(seen));
  if (!parsed.success) throw badRequest(`invalid query: ${describe(parsed.error)}`);
  return parsed.data;
}

function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else if (size > DRAIN_LIMIT_BYTES) {
        req.pause();
        resolve({ text: '', tooLarge: true });
      }
    });
    req.on('end', () =>
      resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > MAX_BODY_BYTES }),
    );
    req.on('error', reject);
  });
}

/** A JSON object body (application/json, at most 16 KiB) checked against a strict schema. */
export async function parseJsonBody<S extends z.ZodType>(
  req: IncomingMessage,
  schema: S,
): Promise<z.output<S>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  const { text, tooLarge } = await readBody(req);
  if (tooLarge) {
    throw new HttpError(400, 'invalid_request', `body exceeds ${MAX_BODY_BYTES} bytes`, {
      connection: 'close',
    });
  }
  if (type !== 'application/json') throw badRequest('content-type must be application/json');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('body must be a JSON object');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw badRequest(`invalid body: ${describe(parsed.error)}`);
  return parsed.data;
}
