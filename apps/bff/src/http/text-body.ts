import express, { type Request, type Response } from 'express';
import getRawBody from 'raw-body';
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
 * A file's bytes as a Buffer in `req.body`, at most `limitBytes`, read only while fewer than
 * `atOnce` are being read: beyond that a 503 before a byte is read, so a flood of uploads
 * cannot hold the process's memory (the slot is held until the response ends). One person
 * reads in at most half of them (429 beyond): four uploads sent a byte every few seconds by one
 * signed-in person held every slot for everyone else until the request timeout (a review), and
 * a person's screen sends two at a time. A file announced larger than the limit is refused
 * before a byte is read, one sent in chunks as soon as it passes the limit (413); either way
 * the answer does not wait for the rest, and the connection closes after it (body-parser would
 * read, and discard, all of it first).
 */
export function createFileBodyReader(
  limitBytes: number,
  atOnce: number,
): (req: Request, res: Response) => Promise<void> {
  let reading = 0;
  const perPerson = Math.max(1, Math.floor(atOnce / 2));
  const readingBy = new Map<string, number>();
  return async (req, res) => {
    const person = req.actor?.email;
    if (person !== undefined && (readingBy.get(person) ?? 0) >= perPerson) {
      throw new AppError(
        429,
        'uploads_busy',
        `Your other uploads are still being sent; at most ${perPerson} go at once. Try again when one has finished.`,
        { retryAfterSeconds: 2 },
      );
    }
    if (reading >= atOnce) {
      throw new AppError(
        503,
        'uploads_busy',
        'Many files are being uploaded right now. Try again in a moment.',
        { retryAfterSeconds: 2 },
      );
    }
    reading++;
    if (person !== undefined) readingBy.set(person, (readingBy.get(person) ?? 0) + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      reading--;
      if (person === undefined) return;
      const left = (readingBy.get(person) ?? 1) - 1;
      if (left > 0) readingBy.set(person, left);
      else readingBy.delete(person);
    };
    res.once('close', release);
    res.once('finish', release);
    const announced = req.headers['content-length'];
    try {
      req.body = await getRawBody(req, {
        limit: limitBytes,
        ...(announced === undefined ? {} : { length: announced }),
      });
    } catch (error) {
      // The rest of the body is not read: the connection ends with the answer.
      res.setHeader('Connection', 'close');
      const type = (error as { type?: unknown }).type;
      if (type === 'entity.too.large') {
        throw new AppError(
          413,
          'body_too_large',
          `The file is over ${limitBytes / 1024 / 1024} MB.`,
        );
      }
      throw new AppError(400, 'invalid_body', 'The file could not be read.');
    }
    if (req.body.length === 0) {
      throw new AppError(400, 'invalid_body', 'Send the file as the request body.');
    }
  };
}
