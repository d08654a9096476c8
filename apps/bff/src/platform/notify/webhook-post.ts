import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { WebhookTarget } from './webhook-target';

// One try of a webhook: a POST through the target's guarded agent (never a redirect followed,
// so a 3xx cannot lead elsewhere), cut off when the whole answer takes longer than the try's time.

/** A try that got no complete answer in its time. */
export class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`no complete answer within ${ms} ms`);
    this.name = 'AttemptTimeout';
  }
}

export interface Answer {
  status: number;
  retryAfter: string | undefined;
}

/** One POST through the target's guarded agent; the answer's body is read and dropped. */
export function post(
  target: WebhookTarget,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Answer> {
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done();
    };
    const fail = (err: Error) => settle(() => reject(err));
    const req = send(target.url, {
      method: 'POST',
      agent: target.agent,
      headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      signal,
    });
    const timer = setTimeout(() => {
      fail(new AttemptTimeout(timeoutMs));
      req.destroy();
    }, timeoutMs);
    req.on('response', (res: IncomingMessage) => {
      // The whole answer within the try's time: a receiver that trickles it is cut off.
      res.resume();
      res.on('end', () =>
        settle(() =>
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }),
        ),
      );
      res.on('error', fail);
      res.on('close', () => fail(new Error('the answer was cut off')));
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** `Retry-After` in ms (seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
