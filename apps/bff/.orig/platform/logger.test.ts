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
