// What the log keeps of a network failure: its message and code after redaction (they may
// quote what the service or a proxy sent), and no code at all when the error's code is not text.
import { describe, expect, it } from 'vitest';
import { captureLogs } from '../test/upstream-client';
import { translateFailure } from './translate-error';

function logNetworkFailure(error: Error) {
  const logs = captureLogs();
  const result = translateFailure(
    { kind: 'network', error },
    {
      template: 'GET /card',
      requestId: 'req-network-1',
      logger: logs.logger,
      redact: (text) => text.replaceAll('SECRET', '[redacted]'),
    },
  );
  return { result, lines: logs.lines() };
}

describe('a network failure in the log', () => {
  it('has its message and its code redacted', () => {
    const error = Object.assign(new Error('proxy said SECRET'), { code: 'E_SECRET' });
    const { result, lines } = logNetworkFailure(error);
    expect(result).toMatchObject({ status: 502, code: 'upstream_unreachable' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      requestId: 'req-network-1',
      upstream: 'GET /card',
      err: { message: 'proxy said [redacted]', code: 'E_[redacted]' },
    });
    expect(JSON.stringify(lines)).not.toContain('SECRET');
  });

  it('carries no code when the error’s code is not text', () => {
    const error = Object.assign(new Error('socket closed'), { code: 104 });
    const { lines } = logNetworkFailure(error);
    expect(lines[0]?.err).toMatchObject({ message: 'socket closed' });
    expect(lines[0]?.err).not.toHaveProperty('code');
  });
});
