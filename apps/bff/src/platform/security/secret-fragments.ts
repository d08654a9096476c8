const GRAM = 3;
const HASH_SIZE = 1 << 16;

export interface FragmentRemoverOptions {
  /** The shortest piece of the secret that is removed (a shorter secret: the whole of it). */
  minLength: number;
  replacement: string;
}

/**
 * A function that replaces every piece of `secret` at least `minLength` characters long found
 * in a text (the secret itself, or a long part of it) by `replacement`.
 *
 * Built once per secret: the positions of each of its 3-character pieces are indexed. A text is
 * looked up only every `minLength - 2` characters: a piece of the secret that long always covers
 * one whole 3-character window starting at such a position, and each hit is grown both ways
 * character by character. So a text costs about a sixth of its length in lookups, and a text
 * shorter than `minLength` costs nothing.
 */
export function createFragmentRemover(
  secret: string,
  options: FragmentRemoverOptions,
): (text: string) => string {
  const { replacement } = options;
  const minLength = Math.max(1, Math.min(options.minLength, secret.length));
  if (secret.length === 0) return (text) => text;
  if (minLength < GRAM) return (text) => text.replaceAll(secret, replacement);

  const positions = new Map<number, number[]>();
  // A bit per hash: most windows of a text miss, and this array read is all they cost.
  const present = new Uint8Array(HASH_SIZE);
  for (let j = 0; j + GRAM <= secret.length; j++) {
    const key = gramAt(secret, j);
    present[key] = 1;
    const list = positions.get(key);
    if (list) list.push(j);
    else positions.set(key, [j]);
  }
  const step = minLength - GRAM + 1;

  return (text) => {
    const n = text.length;
    if (n < minLength) return text;
    let out = '';
    let copied = 0;
    let q = 0;
    while (q + GRAM <= n) {
      const hash = gramAt(text, q);
      const candidates = present[hash] === 1 ? positions.get(hash) : undefined;
      let bestStart = -1;
      let bestEnd = -1;
      if (candidates) {
        for (const j of candidates) {
          // Grow the match around text[q] = secret[j] as far as both agree.
          let a = q;
          let b = j;
          while (a > copied && b > 0 && text.charCodeAt(a - 1) === secret.charCodeAt(b - 1)) {
            a--;
            b--;
          }
          let c = q;
          let d = j;
          while (c < n && d < secret.length && text.charCodeAt(c) === secret.charCodeAt(d)) {
            c++;
            d++;
          }
          if (c - a >= minLength && c - a > bestEnd - bestStart) {
            bestStart = a;
            bestEnd = c;
          }
        }
      }
      if (bestStart >= 0) {
        out += text.slice(copied, bestStart) + replacement;
        copied = bestEnd;
        q = bestEnd;
      } else {
        q += step;
      }
    }
    return copied === 0 ? text : out + text.slice(copied);
  };
}

/** A hash of the 3 characters at `i`; equal hashes are checked character by character. */
function gramAt(text: string, i: number): number {
  return (
    ((text.charCodeAt(i) * 961 + text.charCodeAt(i + 1) * 31 + text.charCodeAt(i + 2)) | 0) &
    (HASH_SIZE - 1)
  );
}
