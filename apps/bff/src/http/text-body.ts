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

/**
 * A file's bytes as a Buffer in `req.body`, at most `limitBytes` (a larger one, announced or
 * sent chunked, is refused as soon as the limit is passed), read only while fewer than
 * `atOnce` are being read: beyond that a 503 before a byte is read, so a flood of uploads
 * cannot hold the process's memory. The slot is held until the response ends.
 */
export function createFileBodyReader(
  limitBytes: number,
  atOnce: number,
): (req: Request, res: Response) => Promise<void> {
  const parse = express.raw({ type: () => true, limit: limitBytes });
  let reading = 0;
  return async (req, res) => {
    if (reading >= atOnce) {
      throw new AppError(
        503,
        'uploads_busy',
        'Many files are being uploaded right now. Try again in a moment.',
        {
          retryAfterSeconds: 2,
        },
      );
    }
    reading++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      reading--;
    };
    res.once('close', release);
    res.once('finish', release);
    await new Promise<void>((resolve, reject) => {
      parse(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
    });
    if (!Buffer.isBuffer(req.body) || req.body.length === 0) {
      throw new AppError(400, 'invalid_body', 'Send the file as the request body.');
    }
  };
}
