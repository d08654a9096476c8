import express, { type Request, type Response } from 'express';
import { AppError } from '../core/app-error';

/** The JSON body's limit unless an endpoint declares its own (`jsonLimitBytes`). */
export const JSON_BODY_LIMIT = 16 * 1024;

function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * The strict JSON body rules: only `application/json`, at most 16 KiB (or the endpoint's own
 * limit), well-formed, and an
 * object at the top level. Everything else is a 400 with the error body. Resolves once
 * `req.body` is set (undefined for a request without a body, such as every GET).
 */
export function createJsonBodyReader(
  limit = JSON_BODY_LIMIT,
): (req: Request, res: Response) => Promise<void> {
  const parse = express.json({ limit, strict: true, type: 'application/json' });
  return async (req, res) => {
    if (!hasBody(req)) {
      req.body = undefined;
      return;
    }
    if (!req.is('application/json')) {
      throw new AppError(400, 'invalid_body', 'Send the request body as application/json.');
    }
    await new Promise<void>((resolve, reject) => {
      parse(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
    });
    const body: unknown = req.body;
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw new AppError(400, 'invalid_body', 'The request body must be a JSON object.');
    }
  };
}
