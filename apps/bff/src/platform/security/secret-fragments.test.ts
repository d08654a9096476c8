import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFragmentRemover } from './secret-fragments';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`secret fragments: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

// Random-looking, and the same for a given seed.
const secret = `sk_live_${createHash('sha256').update(String(seed)).digest('base64url').slice(0, 24)}`;
const remove = createFragmentRemover(secret, { minLength: 8, replacement: '[x]' });

/** Every piece of `secret` of `length` characters found in `text`. */
function piecesIn(text: string, of: string, length: number): string[] {
  const found: string[] = [];
  for (let i = 0; i + length <= of.length; i++) {
    const piece = of.slice(i, i + length);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}

describe('createFragmentRemover', () => {
  it('removes the whole secret, wherever and however often it appears', () => {
    expect(remove(secret)).toBe('[x]');
    expect(remove(`key ${secret} refused; ${secret}!`)).toBe('key [x] refused; [x]!');
  });

  it('removes every piece of 8 or more characters, at every offset of the text', () => {
    for (let length = 8; length <= secret.length; length += 3) {
      for (let start = 0; start + length <= secret.length; start += 2) {
        const piece = secret.slice(start, start + length);
        // Characters a base64url secret never has, so the match cannot grow into them.
        for (const prefix of ['', '#', '##', '###', '####', '#####', '######']) {
          const out = remove(`${prefix}${piece}|`);
          expect(out, `${length}@${start} after ${prefix.length}`).toBe(`${prefix}[x]|`);
        }
      }
    }
  });

  it('leaves shorter pieces and unrelated text untouched', () => {
    const text = `${secret.slice(3, 10)} and ${secret.slice(20, 27)}: fine`;
    expect(remove(text)).toBe(text);
    expect(remove('Blue Bottle Coffee')).toBe('Blue Bottle Coffee');
    expect(remove('')).toBe('');
  });

  it('removes only the whole secret when it is shorter than the piece length', () => {
    const short = createFragmentRemover('abc12', { minLength: 8, replacement: '[x]' });
    expect(short('key abc12; abc1 stays')).toBe('key [x]; abc1 stays');
    const tiny = createFragmentRemover('k9', { minLength: 8, replacement: '[x]' });
    expect(tiny('k9 and k')).toBe('[x] and k');
  });

  it('leaves no piece of 8 characters in any text made of pieces of the secret (property)', () => {
    const part = fc.oneof(
      fc
        .tuple(fc.nat(secret.length), fc.integer({ min: 1, max: secret.length }))
        .map(([start, length]) => secret.slice(start, start + length)),
      fc.string({ maxLength: 6 }),
      fc.constantFrom('s', 'k', '_', 'live', secret.slice(0, 4)),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 10 }), (parts) => {
        const text = parts.join('');
        const out = remove(text);
        expect(piecesIn(out, secret, 8), text).toEqual([]);
        if (piecesIn(text, secret, 8).length === 0) expect(out).toBe(text);
      }),
      { seed, numRuns: 1000 },
    );
  });
});
