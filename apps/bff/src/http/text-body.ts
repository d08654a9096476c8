import express, { type Request, type Response } from 'express';
import { AppError } from '../core/app-error';

/**
 * A text body of one media type (an import's `text/csv`), at most `limitBytes`, as a string in
 * `req.body`; no body, another type or a larger one is a 400 or 413 with the error body.
 */
export function createTextBodyReader(
  type: string,
  limitBytes: number,
): (req: Request, res: Response) => Promise<void> {
  const parse = express.text({ type, limit: limitBytes, defaultCharset: 'utf-8' });
  return async (req, res) => {
    if (!req.is(type)) {
      throw new AppError(400, 'invalid_body', `Send the request body as ${type}.`);
    }
    await new Promise<void>((resolve, reject) => {
      parse(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
    });
    if (typeof req.body !== 'string') {
      throw new AppError(400, 'invalid_body', `Send the request body as ${type}.`);
    }
  };
}
