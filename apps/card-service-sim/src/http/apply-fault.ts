import type { ServerResponse } from 'node:http';
import type { FaultStep } from './faults';
import { codeForStatus } from './http-error';
import { sendError, sendJson, sendRaw } from './respond';

export const MALFORMED_JSON = '{"items":[{"id":"txn_0000001","amountCents":-12';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Drops the connection without a response. */
export function dropConnection(res: ServerResponse): void {
  res.socket?.destroy();
}

export const ECHO_KEY_MESSAGE = 'the key {key} is not allowed for this program';

/**
 * Answers with a scripted fault. Returns false for a step that only delays, after which
 * the request is served normally. `apiKey` is the service's own, for `echo-key`.
 */
export async function applyStep(
  res: ServerResponse,
  step: FaultStep,
  apiKey: string,
): Promise<boolean> {
  switch (step.kind) {
    case 'delay':
      await sleep(step.ms);
      return false;
    case 'drop':
      dropConnection(res);
      return true;
    case 'malformed':
      sendRaw(res, step.status ?? 200, MALFORMED_JSON, 'application/json; charset=utf-8');
      return true;
    case 'html': {
      const status = step.status ?? 502;
      const html = `<!DOCTYPE html><html><head><title>${status} Error</title></head><body><h1>${status} ${codeForStatus(status)}</h1><p>injected fault</p></body></html>`;
      sendRaw(res, status, html, 'text/html; charset=utf-8');
      return true;
    }
    case 'redirect':
      res.writeHead(step.status ?? 302, { location: step.location, 'content-length': '0' });
      res.end();
      return true;
    case 'body':
      sendJson(res, step.status ?? 200, step.body, step.headers);
      return true;
    case 'echo-key':
      sendError(
        res,
        step.status ?? 400,
        (step.message ?? ECHO_KEY_MESSAGE).replaceAll('{key}', apiKey),
        'invalid_request',
      );
      return true;
    case 'status': {
      const headers: Record<string, string> =
        step.retryAfter === undefined ? {} : { 'retry-after': String(step.retryAfter) };
      if (step.body !== undefined) sendJson(res, step.status, step.body, headers);
      else sendError(res, step.status, 'injected fault', codeForStatus(step.status), headers);
      return true;
    }
  }
}
