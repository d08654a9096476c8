// Every way an upstream attempt can fail, straight through translateFailure: what the person
// gets (status, code, a sentence, a retry hint) and what the log gets (level, alarm).
import { describe, expect, it } from 'vitest';
import { captureLogs } from '../test/upstream-client';
import type { AttemptOutcome } from './send-attempt';
import { translateFailure } from './translate-error';

function translate(outcome: AttemptOutcome, retryAfterSeconds?: number) {
  const logs = captureLogs();
  const context = {
    template: 'GET /card',
    requestId: 'req-translate-1',
    logger: logs.logger,
    // Redaction has tests of its own: here every upstream text is kept as it is.
    redact: (text: string) => text,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  };
  const error = translateFailure(outcome, context);
  return { error, lines: logs.lines() };
}

const response = (status: number, body = '', headers = {}): AttemptOutcome => ({
  kind: 'response',
  status,
  headers,
  body,
});

const levels = { info: 30, warn: 40, error: 50 } as const;

/** What a person reads: a whole sentence, never empty, never the bare code. */
function expectSentence(message: string) {
  expect(message).toMatch(/^[A-Z].{3,}\.$/);
}

describe('translateFailure: outcomes without a response', () => {
  it('a timeout → 504 upstream_timeout, logged as a warning', () => {
    const { error, lines } = translate({ kind: 'timeout' });
    expect(error).toMatchObject({ status: 504, code: 'upstream_timeout' });
    expectSentence(error.message);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: levels.warn, requestId: 'req-translate-1' });
    expect(lines[0]?.msg).not.toBe('');
  });

  it('an aborted request → 499 client_closed (the browser went away), never a 502', () => {
    const { error } = translate({ kind: 'aborted' });
    expect(error).toMatchObject({ status: 499, code: 'client_closed' });
    expectSentence(error.message);
  });

  it('an answer over the size limit → 502 upstream_invalid_response, logged as an error', () => {
    const { error, lines } = translate({ kind: 'too-large' });
    expect(error).toMatchObject({ status: 502, code: 'upstream_invalid_response' });
    expectSentence(error.message);
    expect(lines[0]?.level).toBe(levels.error);
    expect(lines[0]?.msg).not.toBe('');
  });

  it('a network failure → 502 upstream_unreachable, logged with its code', () => {
    const failure = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const { error, lines } = translate({ kind: 'network', error: failure });
    expect(error).toMatchObject({ status: 502, code: 'upstream_unreachable' });
    expectSentence(error.message);
    expect(lines[0]).toMatchObject({
      level: levels.warn,
      err: { message: 'connect ECONNREFUSED', code: 'ECONNREFUSED' },
    });
    expect(lines[0]?.msg).not.toBe('');
  });
});

describe('translateFailure: upstream statuses', () => {
  it.each([401, 403])('%i → 502 upstream_key_rejected and an error-level key alarm', (status) => {
    const { error, lines } = translate(response(status, '{"code":"forbidden","message":"no"}'));
    expect(error).toMatchObject({ status: 502, code: 'upstream_key_rejected' });
    expectSentence(error.message);
    const alarm = lines.find((line) => line.alarm === 'upstream_key_rejected');
    expect(alarm).toMatchObject({ level: levels.error, upstreamResponse: { status } });
    expect(alarm?.msg).toMatch(/ALARM/);
  });

  it.each([300, 302, 399])('%i (a redirect) → 502 upstream_bad_gateway, not followed', (status) => {
    const { error, lines } = translate(response(status));
    expect(error).toMatchObject({ status: 502, code: 'upstream_bad_gateway' });
    expectSentence(error.message);
    expect(lines[0]).toMatchObject({ level: levels.error, upstreamResponse: { status } });
    expect(lines[0]?.msg).not.toBe('');
  });

  it('404 → 404 not_found, logged at info', () => {
    const { error, lines } = translate(response(404));
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expectSentence(error.message);
    expect(lines[0]).toMatchObject({ level: levels.info, upstreamResponse: { status: 404 } });
    expect(lines[0]?.msg).not.toBe('');
  });

  it.each([429, 503])(
    '%i → 503 upstream_unavailable with the upstream’s Retry-After passed on',
    (status) => {
      const { error, lines } = translate(response(status), 37);
      expect(error).toMatchObject({
        status: 503,
        code: 'upstream_unavailable',
        retryAfterSeconds: 37,
      });
      expectSentence(error.message);
      expect(lines[0]).toMatchObject({ level: levels.warn, upstreamResponse: { status } });
      expect(lines[0]?.msg).not.toBe('');
    },
  );

  it.each([429, 503])('%i without a Retry-After → a retry hint of 1 second', (status) => {
    const { error } = translate(response(status));
    expect(error).toMatchObject({ status: 503, retryAfterSeconds: 1 });
  });

  it.each([400, 422])(
    '%i with a documented, safe reason → 400 upstream_rejected with it',
    (status) => {
      const body = JSON.stringify({ status, code: 'invalid', message: 'Name is too long' });
      const { error, lines } = translate(response(status, body));
      expect(error).toMatchObject({
        status: 400,
        code: 'upstream_rejected',
        message: 'Name is too long',
      });
      expect(lines[0]).toMatchObject({
        level: levels.info,
        upstreamResponse: { status, code: 'invalid', message: 'Name is too long' },
      });
      expect(lines[0]?.msg).not.toBe('');
    },
  );

  it('400 with an undocumented body → a generic sentence, the body logged as a snippet', () => {
    const { error, lines } = translate(response(400, '<html>Bad Request</html>'));
    expect(error).toMatchObject({ status: 400, code: 'upstream_rejected' });
    expectSentence(error.message);
    expect(lines[0]).toMatchObject({
      upstreamResponse: { status: 400, snippet: '<html>Bad Request</html>' },
    });
  });

  it.each([500, 502, 504, 418])('%i → 502 upstream_error, logged as an error', (status) => {
    const { error, lines } = translate(response(status));
    expect(error).toMatchObject({ status: 502, code: 'upstream_error' });
    expectSentence(error.message);
    expect(error.retryAfterSeconds).toBeUndefined();
    expect(lines[0]).toMatchObject({ level: levels.error, upstreamResponse: { status } });
    expect(lines[0]?.msg).not.toBe('');
  });
});
