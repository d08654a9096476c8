import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCursorCodec } from './cursor-codec';

describe('cursor codec', () => {
  const codec = createCursorCodec(randomBytes(32));

  it('round-trips a position for the same kind and filter', () => {
    const c = codec.encode('card', { sort: 'name' }, ['Ava', 'card_1']);
    expect(c).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(codec.decode(c, 'card', { sort: 'name' })).toEqual(['Ava', 'card_1']);
  });

  it('refuses another kind, another filter, a cursor from another secret, and any flipped character', () => {
    const c = codec.encode('transaction', { s: 'a' }, 42);
    expect(codec.decode(c, 'card', { s: 'a' })).toBeUndefined();
    expect(codec.decode(c, 'transaction', { s: 'b' })).toBeUndefined();
    expect(createCursorCodec(randomBytes(32)).decode(c, 'transaction', { s: 'a' })).toBeUndefined();
    for (let i = 0; i < c.length; i++) {
      if (c[i] === '.') continue;
      const flipped = c.slice(0, i) + (c[i] === 'A' ? 'B' : 'A') + c.slice(i + 1);
      expect(codec.decode(flipped, 'transaction', { s: 'a' })).toBeUndefined();
    }
    for (const junk of ['', '.', 'a.', '.b', 'a.b.c', '%%%.%%%']) {
      expect(codec.decode(junk, 'transaction', { s: 'a' })).toBeUndefined();
    }
  });
});
