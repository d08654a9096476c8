import type { Dispatcher } from 'undici';
import { onAbort } from '../platform/abort-fan-out';

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
  /** `https://host:port` of the card service. */
  origin: string;
  /** Path and query, already built from the allowlisted templates. */
  path: string;
  method: 'GET' | 'POST' | 'PATCH';
  headers: Record<string, string>;
  body?: string;
  /** Whole attempt, from dispatch to the last body byte. */
  timeoutMs: number;
  maxBodyBytes: number;
  /** The caller's signal (client went away). */
  signal?: AbortSignal;
}

/**
 * One HTTP exchange. Never throws: every way it can end is an outcome, and it ends at the
 * latest when its timeout fires, even if the request is still queued for a connection.
 *
 * Built on undici's `dispatch` handler rather than `request()`: the body is collected straight
 * into buffers, without a stream, an abort signal and their listeners for every call, which
 * were a measurable share of a proxied read (bench/report.md). The body is counted as it
 * arrives and the exchange aborted past `maxBodyBytes`.
 */
export function sendAttempt(req: AttemptRequest): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let headers: Record<string, string | string[] | undefined> = {};
    let chunks: Buffer[] = [];
    let size = 0;

    const settle = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stopListening();
      resolve(outcome);
    };
    /** Ends the attempt now and drops the exchange (at once, or as soon as it has a socket). */
    const stop = (outcome: AttemptOutcome) => {
      settle(outcome);
      chunks = [];
      controller?.abort(new Error(`upstream attempt ended: ${outcome.kind}`));
    };
    let stopListening = () => {};
    const timer = setTimeout(() => stop({ kind: 'timeout' }), req.timeoutMs);
    if (req.signal) {
      if (req.signal.aborted) return stop({ kind: 'aborted' });
      // Many attempts share one caller's signal: one listener on it for all (abort-fan-out.ts).
      stopListening = onAbort(req.signal, () => stop({ kind: 'aborted' }));
    }

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (settled) c.abort(new Error('upstream attempt ended before it started'));
      },
      onResponseStart(_c, statusCode, responseHeaders) {
        if (statusCode < 200) return; // 1xx: the real answer follows
        status = statusCode;
        headers = responseHeaders;
        if (Number(responseHeaders['content-length']) > req.maxBodyBytes) {
          stop({ kind: 'too-large' });
        }
      },
      onResponseData(_c, chunk) {
        if (settled) return;
        size += chunk.length;
        if (size > req.maxBodyBytes) stop({ kind: 'too-large' });
        else chunks.push(chunk);
      },
      onResponseEnd() {
        // A page usually arrives as one chunk: decode it as it is rather than copy it first.
        const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
        settle({ kind: 'response', status, headers, body: bytes.toString('utf8') });
      },
      onResponseError(_c, error) {
        settle({ kind: 'network', error });
      },
    };
    try {
      req.dispatcher.dispatch(
        {
          origin: req.origin,
          path: req.path,
          method: req.method,
          headers: req.headers,
          body: req.body ?? null,
        },
        handler,
      );
    } catch (error) {
      settle({ kind: 'network', error: error instanceof Error ? error : new Error(String(error)) });
    }
  });
}
