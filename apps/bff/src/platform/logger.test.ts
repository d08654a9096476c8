import { describe, expect, it } from 'vitest';
import { lineSink } from '../test/capture';
import { testPan } from '../test/test-pan';
import { createLogger } from './logger';

const pan = testPan(2);

describe('the logger', () => {
  it('blanks secrets wherever a careless call puts them', () => {
    const lines: string[] = [];
    const logger = createLogger('info', lineSink(lines));
    logger.info(
      {
        req: {
          headers: { cookie: 'cc_session=abc', authorization: 'Bearer t', 'x-api-key': 'k-123' },
        },
        res: { headers: { 'set-cookie': 'cc_session=abc' } },
        card: { pan: pan, cvv: '123' },
        upstream: { response: { pan: pan, cvv: '123' } },
        attempt: { password: 'hunter2', totp: '123456' },
        apiKey: 'k-123',
        body: { anything: 'x' },
      },
      'oops',
    );
    const text = lines.join('\n');
    for (const secret of ['abc', 'Bearer t', 'k-123', pan, '"123"', 'hunter2', '123456']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });
});

describe('the logger given secrets', () => {
  const key = 'sk_live_Q9x"7\\Zk2mP4vT8wR1yB';

  it('never writes one, whatever field, message, error or child logger carries it', () => {
    const lines: string[] = [];
    const logger = createLogger('debug', lineSink(lines), { secrets: [key] });
    logger.info({ upstreamResponse: { message: `key ${key} is not allowed` } }, 'rejected');
    logger.warn(`the service said ${key}`);
    logger.error({ err: new Error(`boom ${key}`) }, 'failed');
    logger.child({ requestId: key }).info({ nested: { deeper: [key] } }, 'child');
    // A child with its own redaction settings, as the request log line uses.
    logger.child({}, { redact: { paths: [], censor: '[redacted]' } }).info({ url: `/x?k=${key}` });
    expect(lines).toHaveLength(5);
    const text = lines.join('\n');
    expect(text).not.toContain(JSON.stringify(key).slice(1, -1));
    expect(text).not.toContain('sk_live_Q9x');
    expect(text).not.toContain('Zk2mP4vT8wR1yB');
    for (const line of lines) expect(JSON.parse(line)).toBeTypeOf('object');
    expect(text).toContain('key [redacted] is not allowed');
  });

  it('writes lines without a secret unchanged', () => {
    const plain: string[] = [];
    const scrubbed: string[] = [];
    createLogger('info', lineSink(plain)).info({ a: 1 }, 'same');
    createLogger('info', lineSink(scrubbed), { secrets: [key] }).info({ a: 1 }, 'same');
    const withoutTime = (line: string) => ({ ...JSON.parse(line), time: undefined });
    expect(scrubbed.map(withoutTime)).toEqual(plain.map(withoutTime));
  });
});
