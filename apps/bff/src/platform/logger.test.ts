import { describe, expect, it } from 'vitest';
import { lineSink } from '../test/capture';
import { createLogger } from './logger';

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
        card: { pan: '4000000000000002', cvv: '123' },
        upstream: { response: { pan: '4000000000000002', cvv: '123' } },
        attempt: { password: 'hunter2', totp: '123456' },
        apiKey: 'k-123',
        body: { anything: 'x' },
      },
      'oops',
    );
    const text = lines.join('\n');
    for (const secret of [
      'abc',
      'Bearer t',
      'k-123',
      '4000000000000002',
      '"123"',
      'hunter2',
      '123456',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });
});
