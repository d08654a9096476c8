// Test helpers for the CSV export (not a test file).
import http from 'node:http';
import type { Response } from 'supertest';

/**
 * A supertest body parser that keeps a response's body as text, whatever its type (a CSV file):
 * `.buffer(true).parse(textBody)`.
 */
export function textBody(
  response: Response,
  done: (error: Error | null, body: string) => void,
): void {
  let text = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    text += chunk;
  });
  response.on('end', () => done(null, text));
}

/** A small RFC 4180 reader, enough to check what a spreadsheet would see. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  if (cell !== '' || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

export interface RawDownload {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: number;
  /** True when the body ended cleanly (the last chunk arrived). */
  complete: boolean;
}

/** Downloads over a raw socket, optionally hanging up after `abortAfterBytes`. */
export function rawDownload(
  url: string,
  headers: Record<string, string>,
  abortAfterBytes?: number,
): Promise<RawDownload> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      let bytes = 0;
      let settled = false;
      const done = (complete: boolean) => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, complete });
      };
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (abortAfterBytes !== undefined && bytes >= abortAfterBytes) {
          req.destroy();
          done(false);
        }
      });
      res.on('end', () => done(res.complete));
      res.on('error', () => done(false));
      res.on('aborted', () => done(false));
      res.on('close', () => done(res.complete));
    });
    req.on('error', (error) =>
      abortAfterBytes === undefined
        ? resolve({ status: 0, headers: {}, bytes: 0, complete: false })
        : reject(error),
    );
  });
}

export interface WholeDownload extends RawDownload {
  text: string;
}

/** Downloads to the end over a socket of its own (so many can run in parallel), keeping the text. */
export function downloadWhole(
  url: string,
  headers: Record<string, string>,
): Promise<WholeDownload> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let settled = false;
      const done = () => {
        if (settled) return;
        settled = true;
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          bytes: Buffer.byteLength(text),
          complete: res.complete,
          text,
        });
      };
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    req.on('error', reject);
  });
}
