import { describe, expect, it } from 'vitest';
import type { DeferredPage } from './client';
import { walkPages } from './walk-pages';

/** Pages of numbers; `cursors[i]` is page i's next cursor. `log` records asks and checks. */
function pages(items: number[][], cursors: (string | undefined)[], log: string[]) {
  const page = (i: number): DeferredPage<number> => ({
    metadata: {
      count: items[i]?.length ?? 0,
      ...(cursors[i] === undefined ? {} : { nextCursor: cursors[i] }),
    },
    items: () => {
      log.push(`check ${i}`);
      return items[i] ?? [];
    },
  });
  const next = async (cursor: string) => {
    log.push(`ask ${cursor}`);
    return page(Number(cursor.slice(1)));
  };
  return { first: page(0), next };
}

describe('walkPages', () => {
  it('hands every page over in order, asking for the next before checking this one', async () => {
    const log: string[] = [];
    const { first, next } = pages([[1, 2], [3], [4, 5]], ['c1', 'c2', undefined], log);
    const seen: number[] = [];
    expect(await walkPages(first, next, (items) => seen.push(...items))).toBe(true);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(log).toEqual(['ask c1', 'check 0', 'ask c2', 'check 1', 'check 2']);
  });

  it('a cursor that does not move is a 502, not an endless walk', async () => {
    const { first, next } = pages([[1], [2], [3]], ['c1', 'c1', 'c1'], []);
    await expect(walkPages(first, next, () => {})).rejects.toMatchObject({
      status: 502,
      code: 'upstream_invalid_response',
    });
  });

  it('stops after the page during which it was told to, and says it did not finish', async () => {
    const { first, next } = pages([[1], [2], [3]], ['c1', 'c2', undefined], []);
    const seen: number[] = [];
    const done = await walkPages(
      first,
      next,
      (items) => seen.push(...items),
      () => seen.length >= 2,
    );
    expect(done).toBe(false);
    expect(seen).toEqual([1, 2]);
  });
});
