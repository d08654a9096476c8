import { describe, expect, it } from 'vitest';
import { testPan } from '../test/test-pan';
import { buildRequest } from './operations';
import { parseRetryAfter } from './retry-after';
import { bodyForLog, maskDigitRuns, safeUpstreamMessage } from './safe-message';
import { createUpstreamRedactor } from './upstream-redactor';

describe('Retry-After', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  it('reads delta seconds', () => expect(parseRetryAfter('3', now)).toBe(3000));
  it('reads an HTTP date', () =>
    expect(parseRetryAfter(new Date(now + 5000).toUTCString(), now)).toBe(5000));
  it('never gives a negative wait for a past date', () =>
    expect(parseRetryAfter(new Date(now - 5000).toUTCString(), now)).toBe(0));
  it('ignores garbage and absence', () => {
    expect(parseRetryAfter('soon-ish', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('the upstream allowlist', () => {
  it('encodes ids and builds only known query parameters', () => {
    expect(buildRequest('getCard', 'card_1', { include_pan: 'true' }).pathAndQuery).toBe(
      '/card/card_1?include_pan=true',
    );
    expect(buildRequest('listCards', undefined, { 'filter:status': 'active' }).pathAndQuery).toBe(
      '/card?filter%3Astatus=active',
    );
  });
  it.each([
    ['../sub-account', '/card/..%2Fsub-account'],
    ['a/b', '/card/a%2Fb'],
    ['a?include_pan=true', '/card/a%3Finclude_pan%3Dtrue'],
    ['a#b', '/card/a%23b'],
    ['%2e%2e', '/card/%252e%252e'],
    ['100% $&', '/card/100%25%20%24%26'],
    ['...', '/card/...'],
    ['卡 1', '/card/%E5%8D%A1%201'],
  ])('puts the id %j in the path as one encoded segment, never as path syntax', (id, path) => {
    const built = buildRequest('getCard', id);
    expect(built.pathAndQuery).toBe(path);
    const segments = built.pathAndQuery.split('/');
    expect(segments).toHaveLength(3);
    expect(decodeURIComponent(segments[2] as string)).toBe(id);
    // A URL parser on the way reads the same one segment under /card/.
    expect(new URL(built.pathAndQuery, 'http://upstream.test/').pathname).toBe(path);
  });

  it.each(['..', '.', '', 'a\u0000b', 'x'.repeat(513)])(
    'refuses the id %j, which no encoding keeps inside /card/{id}',
    (id) => {
      expect(() => buildRequest('getCard', id)).toThrowError(/not valid/);
    },
  );

  it('encodes query values as URI components: a space is %20 and a plus %2B', () => {
    const built = buildRequest('listTransactions', undefined, {
      subAccountId: 'sub 1/€',
      cursor: 'ab+/c= d&x=1',
    });
    expect(built.pathAndQuery).toBe(
      '/transaction?subAccountId=sub%201%2F%E2%82%AC&cursor=ab%2B%2Fc%3D%20d%26x%3D1',
    );
    const read = new URL(built.pathAndQuery, 'http://upstream.test/').searchParams;
    expect(read.get('cursor')).toBe('ab+/c= d&x=1');
    expect(read.get('subAccountId')).toBe('sub 1/€');
  });

  it('answers 502 for a cursor from the service that cannot be encoded (a lone surrogate)', () => {
    expect(() => buildRequest('listCards', undefined, { cursor: 'a\ud800' })).toThrowError(
      expect.objectContaining({ status: 502, code: 'upstream_invalid_response' }),
    );
  });
  it('refuses a query parameter the operation does not have', () => {
    expect(() => buildRequest('getTransaction', 'tx_1', { include_pan: 'true' })).toThrow();
  });
});

describe('upstream text', () => {
  const key = 'sk_live_5fQ2rT9wXc7vB3nM8kL1';
  const redact = createUpstreamRedactor(key);
  const pan = testPan(11);
  const grouped = pan.match(/.{4}/g)?.join(' ') ?? pan;

  it('shows a short plain reason', () =>
    expect(safeUpstreamMessage('maximum must be at least minimum', redact)).toBe(
      'maximum must be at least minimum',
    ));

  it('hides markup, control characters, other long digit runs and long messages', () => {
    expect(safeUpstreamMessage('<b>boom</b>', redact)).toBeUndefined();
    expect(safeUpstreamMessage('line\nbreak', redact)).toBeUndefined();
    expect(safeUpstreamMessage(`bad account ${'4'.repeat(16)}`, redact)).toBeUndefined();
    expect(safeUpstreamMessage('x'.repeat(400), redact)).toBeUndefined();
  });

  it('shows a reason that quotes the key without the key or any long piece of it', () => {
    expect(safeUpstreamMessage(`key ${key} is not allowed`, redact)).toBe(
      'key [redacted] is not allowed',
    );
    const shown = safeUpstreamMessage(`unknown key ${key.slice(5, 17)}…`, redact) ?? '';
    expect(shown).toBe('unknown key [redacted]…');
  });

  it('shows a reason that quotes a card number with the number masked to its last four', () =>
    expect(safeUpstreamMessage(`card ${grouped} is blocked`, redact)).toBe(
      `card •••• ${pan.slice(-4)} is blocked`,
    ));

  it('redacts the key, its long pieces and card numbers; leaves other text alone', () => {
    expect(redact(`${key.slice(0, 8)}/${pan}`)).toBe(`[redacted]/•••• ${pan.slice(-4)}`);
    expect(redact(`${key.slice(0, 7)} and order 123456`)).toBe(
      `${key.slice(0, 7)} and order 123456`,
    );
  });

  it('masks digit runs for logs', () =>
    expect(maskDigitRuns(`pan ${grouped} end`)).toBe('pan [redacted-number] end'));

  it('logs no digits of a card number cut off where a long body is truncated', () => {
    for (let cut = 1; cut < 16; cut++) {
      const logged = bodyForLog(`${'x'.repeat(500 - cut)}${pan} and more`, redact);
      expect(logged, `cut after ${cut} digits`).toMatch(/^x+(\[redacted-number\])?$/);
    }
  });

  it('logs no digits of a card number cut off after a run of separators', () => {
    const spaced = pan.match(/.{4}/g)?.join(' - ') ?? pan;
    for (let cut = 1; cut < spaced.length; cut++) {
      const logged = bodyForLog(`${'x'.repeat(500 - cut)}${spaced} and more`, redact);
      expect(logged, `cut after ${cut} characters`).toMatch(/^x+\D*$/);
    }
  });

  it('logs an upstream body without the key', () =>
    expect(bodyForLog(`{"message":"key ${key}"}`, redact)).toBe('{"message":"key [redacted]"}'));
});
