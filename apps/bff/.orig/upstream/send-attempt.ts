import { type Dispatcher, request } from 'undici';

/** What one attempt ended with: a full response (body read), a timeout, or a network failure. */
export type AttemptOutcome =
  | {
      kind: 'response';
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: string;
    }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  | { kind: 'too-large' }
  | { kind: 'network'; error: Error };

export interface AttemptRequest {
  dispatcher: Dispatcher;
  url: string;
  method: 'GET' | 'POST' | 'PATCH';
  headers: Record<string, string>;
  body?: string;
  /** Whole attempt, headers and body. */
  timeoutMs: number;
  maxBodyBytes: number;
  /** The caller's signal (client went away). */
  signal?: AbortSignal;
}

class BodyTooLarge extends Error {}

async function readBody(body: AsyncIterable<Buffer>, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One HTTP exchange. Never throws: every way it can end is an outcome. */
export async function sendAttempt(req: AttemptRequest): Promise<AttemptOutcome> {
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([timer.signal, req.signal]) : timer.signal;
  try {
    const res = await request(req.url, {
      dispatcher: req.dispatcher,
      method: req.method,
      headers: req.headers,
      body: req.body ?? null,
      signal,
    });
    try {
      const body = await readBody(res.body, req.maxBodyBytes);
      return { kind: 'response', status: res.statusCode, headers: res.headers, body };
    } catch (error) {
      res.body.destroy();
      throw error;
    }
  } catch (error) {
    if (error instanceof BodyTooLarge) return { kind: 'too-large' };
    if (req.signal?.aborted) return { kind: 'aborted' };
    if (timer.signal.aborted) return { kind: 'timeout' };
    return { kind: 'network', error: error instanceof Error ? error : new Error(String(error)) };
  } finally {
    clearTimeout(timeout);
  }
}
