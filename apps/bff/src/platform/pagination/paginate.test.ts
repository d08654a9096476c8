// The one paginator behind every walk: pages in order with the next asked for ahead, one rule
// for a stuck cursor, and every walk bounded by a page cap and a time budget.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../core/app-error';
import { ManualClock } from '../../test/manual-clock';
import { createServicePace, type WalkPace } from './pace';
import { BUSY_REASKS, KEY_WINDOW_PAGES, paginate, STALE_PAGES } from './paginate';
import {
  walkBudget as budgetOf,
  type PageSource,
  type WalkBudgetOptions,
  type WalkLimits,
} from './walk-budget';

/** A source whose errors read as the card service's do (`upstream/walk-limits.ts`). */
const service: PageSource = {
  name: 'the card service',
  repeated: { status: 502, code: 'upstream_invalid_response' },
  tooLong: { status: 502, code: 'upstream_bad_gateway' },
  timeout: { status: 504, code: 'upstream_timeout' },
};
const walkBudget = (limits: WalkLimits, options: Partial<WalkBudgetOptions> = {}) =>
  budgetOf(limits, { source: service, ...options });

interface Page {
  n: number;
  items: number[];
  next?: string;
}

const roomy: WalkLimits = { what: 'numbers', maxPages: 1_000, timeMs: 60_000 };

/**
 * A list whose page i holds `items[i]` and names `cursors[i]` as the next page's cursor; a
 * cursor stands for the page that first named it plus one (`byCursor`). `log` records each ask
 * and each time a page's items are looked at.
 */
function list(items: number[][], cursors: (string | undefined)[], log: string[] = []) {
  const byCursor = new Map<string, number>();
  cursors.forEach((c, i) => {
    if (c !== undefined && !byCursor.has(c)) byCursor.set(c, i + 1);
  });
  const page = (n: number) => ({
    n,
    get items() {
      log.push(`check ${n}`);
      return items[n] ?? [];
    },
    ...(cursors[n] === undefined ? {} : { next: cursors[n] }),
  });
  return {
    first: async () => {
      log.push('ask first');
      return page(0);
    },
    next: async (cursor: string) => {
      log.push(`ask ${cursor}`);
      return page(byCursor.get(cursor) ?? -1);
    },
    cursorOf: (p: Page) => p.next,
  };
}

/** A list that never ends: every page names a cursor never seen before. */
function endless(delayMs = 0) {
  let asked = 0;
  const page = (n: number): Page => ({ n, items: [n], next: `fresh-${n + 1}` });
  return {
    asked: () => asked,
    first: async () => {
      asked += 1;
      if (delayMs) await sleep(delayMs);
      return page(0);
    },
    next: async (cursor: string) => {
      asked += 1;
      if (delayMs) await sleep(delayMs);
      return page(Number(cursor.slice('fresh-'.length)));
    },
    cursorOf: (p: Page) => p.next,
  };
}

async function all<P>(pages: AsyncIterable<P>): Promise<P[]> {
  const out: P[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

describe('paginate', () => {
  it('hands every page over in order, asking for the next before checking this one', async () => {
    const log: string[] = [];
    const pages = paginate({
      ...list([[1, 2], [3], [4, 5]], ['c1', 'c2', undefined], log),
      budget: walkBudget(roomy),
    });
    const seen: number[] = [];
    for await (const page of pages) seen.push(...page.items);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(log).toEqual(['ask first', 'ask c1', 'check 0', 'ask c2', 'check 1', 'check 2']);
  });

  it('asks for the next page only when resumed when told not to read ahead', async () => {
    const log: string[] = [];
    const pages = paginate({
      ...list([[1], [2], [3]], ['c1', 'c2', undefined], log),
      budget: walkBudget(roomy),
      prefetch: false,
    });
    for await (const page of pages) void page.items;
    expect(log).toEqual(['ask first', 'check 0', 'ask c1', 'check 1', 'ask c2', 'check 2']);
  });

  it('starts from a page already read, which the budget does not count again', async () => {
    const source = list([[1], [2]], ['c1', undefined]);
    const budget = walkBudget(roomy);
    const got = await all(paginate({ ...source, first: { n: 0, items: [1], next: 'c1' }, budget }));
    expect(got.map((p) => p.n)).toEqual([0, 1]);
    expect(budget.pages()).toBe(1);
  });

  it('ends the walk when the loop is left, asking for nothing after the page read ahead', async () => {
    const source = endless();
    for await (const page of paginate({ ...source, budget: walkBudget(roomy) })) {
      if (page.n === 2) break;
    }
    expect(source.asked()).toBe(4);
  });

  describe('a stuck cursor', () => {
    it.each([
      ['the same cursor again', ['c1', 'c1', 'c1']],
      ['a cursor of an earlier page (a cycle)', ['c1', 'c2', 'c1', 'c2']],
      ['a cycle back to the first page', ['c1', 'c2', 'c3', 'c1']],
    ])('%s is a 502 upstream_invalid_response, not an endless walk', async (_, cursors) => {
      const log: string[] = [];
      const source = list([[0], [1], [2], [3]], cursors, log);
      const seen: number[] = [];
      const walk = (async () => {
        for await (const page of paginate({ ...source, budget: walkBudget(roomy) })) {
          seen.push(page.n);
        }
      })();
      await expect(walk).rejects.toMatchObject({
        status: 502,
        code: 'upstream_invalid_response',
        message: 'The card service repeated a page.',
      });
      // Every page before the one naming an old cursor again, and never one past it.
      const repeat = cursors.findIndex((c, i) => cursors.indexOf(c) < i);
      expect(seen).toEqual(Array.from({ length: repeat }, (_, i) => i));
      expect(log.filter((l) => l.startsWith('ask'))).toHaveLength(repeat + 1);
    });

    it('a cursor like the last one but its own is not a repeat', async () => {
      // The contract service makes cursors distinct with suffixes: "c1", "c1~1", …
      const source = list([[0], [1], [2]], ['c1', 'c1~1', undefined]);
      const got = await all(paginate({ ...source, budget: walkBudget(roomy) }));
      expect(got.map((p) => p.items[0])).toEqual([0, 1, 2]);
    });
  });

  describe('fresh cursors to nothing new', () => {
    /** Fresh cursors for ever; page n holds `rowsOf(n)`. */
    function freshTo(rowsOf: (n: number) => number[]) {
      let asked = 0;
      const page = (n: number): Page => ({ n, items: rowsOf(n), next: `fresh-${n + 1}` });
      return {
        asked: () => asked,
        first: async () => {
          asked += 1;
          return page(0);
        },
        next: async (cursor: string) => {
          asked += 1;
          return page(Number(cursor.slice('fresh-'.length)));
        },
        cursorOf: (p: Page) => p.next,
        keysOf: (p: Page) => p.items.map(String),
      };
    }
    const limits = { what: 'transactions for the index', maxPages: 100_000, timeMs: 60_000 };

    it.each([
      ['the same rows again', () => [1, 2, 3]],
      ['empty pages', () => []],
      ['a cycle of ten pages of rows', (n: number) => [n % 10]],
    ])('%s: the walk ends after STALE_PAGES of them with a 502 that says so', async (_, rowsOf) => {
      const source = freshTo(rowsOf);
      const seen: number[] = [];
      const walk = (async () => {
        for await (const page of paginate({ ...source, budget: walkBudget(limits) })) {
          seen.push(page.n);
        }
      })();
      await expect(walk).rejects.toMatchObject({
        status: 502,
        code: 'upstream_invalid_response',
        message: `The card service sent ${STALE_PAGES} pages in a row with nothing new while listing transactions for the index, so Card Console stopped reading.`,
      });
      // The pages that brought something, then STALE_PAGES - 1 that did not; never the cap.
      const fresh = rowsOf(0).length === 0 ? 0 : new Set(seen.map((n) => rowsOf(n)[0])).size;
      expect(seen).toHaveLength(fresh + STALE_PAGES - 1);
      expect(source.asked()).toBeLessThan(fresh + STALE_PAGES + 2);
    });

    it('a long list that keeps bringing rows is read whole, runs of nothing new shorter than the rule included', async () => {
      // 600 pages; every 30th page starts a run of STALE_PAGES - 1 pages repeating its row.
      const rowOf = (n: number) => (n % 30 < STALE_PAGES ? n - (n % 30) : n);
      const cursors = Array.from({ length: 600 }, (_, i) => (i < 599 ? `c${i + 1}` : undefined));
      const source = list(
        Array.from({ length: 600 }, (_, n) => [rowOf(n)]),
        cursors,
      );
      const pages = paginate({
        ...source,
        keysOf: (p: Page) => p.items.map(String),
        budget: walkBudget(limits),
      });
      expect(await all(pages)).toHaveLength(600);
    });

    it('a row seen more than KEY_WINDOW_PAGES pages ago counts as new again', async () => {
      // The same row every KEY_WINDOW_PAGES + 1 pages, new ones between: nothing is stale.
      const period = KEY_WINDOW_PAGES + 1;
      const rowsOf = (n: number) => (n % period === 0 ? [0] : [n]);
      const cursors = Array.from({ length: 3 * period }, (_, i) =>
        i < 3 * period - 1 ? `c${i + 1}` : undefined,
      );
      const source = list(
        Array.from({ length: 3 * period }, (_, n) => rowsOf(n)),
        cursors,
      );
      const pages = paginate({
        ...source,
        keysOf: (p: Page) => p.items.map(String),
        budget: walkBudget(limits),
      });
      expect(await all(pages)).toHaveLength(3 * period);
    });
  });

  describe('the page cap', () => {
    it('an endless list of fresh cursors ends at the cap: a 502 that says so', async () => {
      const source = endless();
      const limits = { what: 'sub accounts', maxPages: 40, timeMs: 60_000 };
      const seen: number[] = [];
      const walk = (async () => {
        for await (const page of paginate({ ...source, budget: walkBudget(limits) })) {
          seen.push(page.n);
        }
      })();
      await expect(walk).rejects.toMatchObject({
        status: 502,
        code: 'upstream_bad_gateway',
        message: expect.stringMatching(/^The card service listed sub accounts past 40 pages/),
      });
      expect(seen).toHaveLength(40);
      expect(source.asked()).toBe(40);
    });

    it('a list of exactly the cap is read whole', async () => {
      const cursors = Array.from({ length: 5 }, (_, i) => (i < 4 ? `c${i + 1}` : undefined));
      const source = list([[0], [1], [2], [3], [4]], cursors);
      const limits = { what: 'cards', maxPages: 5, timeMs: 60_000 };
      expect(await all(paginate({ ...source, budget: walkBudget(limits) }))).toHaveLength(5);
    });

    it('counts the pages of every part of one walk together', async () => {
      const budget = walkBudget({ what: 'transactions', maxPages: 25, timeMs: 60_000 });
      const parts = [endless(), endless(), endless()].map((source) =>
        all(paginate({ ...source, budget })),
      );
      for (const part of parts) {
        await expect(part).rejects.toMatchObject({ code: 'upstream_bad_gateway' });
      }
      expect(budget.pages()).toBe(25);
    });

    it('a part with a cap of its own stops at it, and its pages count in the whole', async () => {
      const whole = walkBudget({ what: 'transactions', maxPages: 1_000, timeMs: 60_000 });
      const part = whole.child({ what: 'sub accounts', maxPages: 7, timeMs: 60_000 });
      await expect(all(paginate({ ...endless(), budget: part }))).rejects.toMatchObject({
        message: expect.stringContaining('sub accounts past 7 pages'),
      });
      expect(whole.pages()).toBe(7);
    });
  });

  describe('the time budget', () => {
    it('a slow service ends the walk at its budget, even with a page still on its way: a 504', async () => {
      const source = endless(40);
      const limits = { what: 'transactions', maxPages: 1_000, timeMs: 150 };
      const started = performance.now();
      const walk = all(paginate({ ...source, budget: walkBudget(limits) }));
      await expect(walk).rejects.toMatchObject({
        status: 504,
        code: 'upstream_timeout',
        message: expect.stringMatching(
          /^Reading transactions from the card service took longer than 0\.15 s/,
        ),
      });
      const took = performance.now() - started;
      expect(took).toBeGreaterThanOrEqual(145);
      expect(took).toBeLessThan(150 + 40 + 100);
      expect(source.asked()).toBeLessThanOrEqual(5);
    });

    it('a page that never comes ends the walk at the budget', async () => {
      const budget = walkBudget({ what: 'cards', maxPages: 10, timeMs: 50 });
      const never = new Promise<Page>(() => {});
      await expect(
        all(paginate({ first: () => never, next: () => never, cursorOf: () => undefined, budget })),
      ).rejects.toMatchObject({ status: 504, code: 'upstream_timeout' });
    });

    it('is measured by the clock it is given: no page is asked for once it has passed', async () => {
      const clock = new ManualClock();
      const source = endless();
      const limits = { what: 'transactions', maxPages: 1_000_000, timeMs: 600_000 };
      const budget = walkBudget(limits, { now: () => clock.now() });
      const seen: number[] = [];
      const walk = (async () => {
        for await (const page of paginate({ ...source, budget, prefetch: false })) {
          seen.push(page.n);
          if (page.n === 9) clock.advance(600_000);
        }
      })();
      await expect(walk).rejects.toMatchObject({
        status: 504,
        message: expect.stringContaining('took longer than 10 minutes'),
      });
      expect(seen).toHaveLength(10);
      expect(source.asked()).toBe(10);
    });
  });

  it('a healthy but slow list (a page a second for ten minutes on its clock) is read to its end; the same pace sending nothing new ends within twenty pages', async () => {
    // The index sync's limits: a walk is stopped on what the list sends, not on how long it is.
    const limits = { what: 'transactions', maxPages: 100_000, timeMs: 1_800_000 };
    const slowList = (fresh: boolean) => {
      const clock = new ManualClock(0);
      const page = async (n: number): Promise<Page> => {
        clock.advance(1_000);
        const last = n === 599;
        return { n, items: [fresh ? n : 0], ...(last ? {} : { next: `c${n + 1}` }) };
      };
      return {
        clock,
        walk: paginate({
          first: () => page(0),
          next: (cursor) => page(Number(cursor.slice(1))),
          cursorOf: (p: Page) => p.next,
          keysOf: (p: Page) => p.items.map(String),
          budget: walkBudget(limits, { now: () => clock.now() }),
          prefetch: false,
        }),
      };
    };
    const healthy = slowList(true);
    expect(await all(healthy.walk)).toHaveLength(600);
    expect(healthy.clock.now()).toBe(600_000);
    const stuck = slowList(false);
    await expect(all(stuck.walk)).rejects.toMatchObject({ code: 'upstream_invalid_response' });
    expect(stuck.clock.now()).toBeLessThanOrEqual((STALE_PAGES + 1) * 1_000);
  });

  describe('a pace', () => {
    /** A pace that records what the walk told it, one turn at a time after `gapMs`. */
    function recording(gapMs: number) {
      const told: string[] = [];
      const pace: WalkPace = {
        async turn() {
          await sleep(gapMs);
          return {
            answered: () => void told.push('answered'),
            failed: (trouble) => void told.push(`failed ${JSON.stringify(trouble)}`),
          };
        },
        range: async () => () => {},
        limit: () => 1,
      };
      return { pace, told };
    }

    it('asks for each page in its turn and tells the pace of every answer', async () => {
      const { pace, told } = recording(40);
      const source = list([[0], [1], [2]], ['c1', 'c2', undefined]);
      const started = performance.now();
      const got = await all(paginate({ ...source, budget: walkBudget(roomy), pace }));
      expect(got.map((p) => p.n)).toEqual([0, 1, 2]);
      // A turn waited for before each of the three pages.
      expect(performance.now() - started).toBeGreaterThanOrEqual(118);
      expect(told).toEqual(['answered', 'answered', 'answered']);
    });

    it('asks again for a page the source was too busy for, after the wait it asked for', async () => {
      // Holds capped at 100 ms, so the test does not wait the second asked for.
      const service = createServicePace({ start: 1, maxHoldMs: 100 });
      const pace = service.walk('background');
      const source = list([[0], [1], [2]], ['c1', 'c2', undefined]);
      let busy = 2;
      const asked: string[] = [];
      const next = async (cursor: string) => {
        asked.push(cursor);
        if (cursor === 'c1' && busy-- > 0) {
          throw new AppError(503, 'upstream_unavailable', 'busy', { retryAfterSeconds: 1 });
        }
        return source.next(cursor);
      };
      const started = performance.now();
      const got = await all(paginate({ ...source, next, budget: walkBudget(roomy), pace }));
      expect(got.map((p) => p.n)).toEqual([0, 1, 2]);
      expect(asked).toEqual(['c1', 'c1', 'c1', 'c2']);
      // Each ask after a busy one waited out the pace's hold.
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
      expect(service.state().backoffs).toBe(2);
    });

    /** A walk whose every page after the first fails with `error`; `asks()` counts them. */
    function failingWalk(error: AppError, pace: WalkPace) {
      let asks = 0;
      const walk = all(
        paginate({
          first: async () => ({ n: 0, items: [0], next: 'c1' }) as Page,
          next: () => {
            asks += 1;
            return Promise.reject(error);
          },
          cursorOf: (p: Page) => p.next,
          budget: walkBudget(roomy),
          pace,
        }),
      );
      return { walk, asks: () => asks };
    }

    it('fails with the busy answer once the source stays busy past BUSY_REASKS asks', async () => {
      const { pace, told } = recording(0);
      const busy = new AppError(503, 'upstream_unavailable', 'busy', { retryAfterSeconds: 3 });
      const { walk, asks } = failingWalk(busy, pace);
      await expect(walk).rejects.toBe(busy);
      expect(asks()).toBe(BUSY_REASKS + 1);
      expect(told.slice(0, 2)).toEqual(['answered', 'failed {"waitMs":3000}']);
    });

    it('a page that failed for its own reasons is not asked again, and says nothing of the pace', async () => {
      const { pace, told } = recording(0);
      const broken = new AppError(502, 'upstream_invalid_response', 'bad');
      const notFound = new AppError(404, 'not_found', 'gone');
      for (const [error, trouble] of [
        [broken, 'failed {}'],
        [notFound, 'failed undefined'],
      ] as const) {
        told.length = 0;
        const { walk, asks } = failingWalk(error, pace);
        await expect(walk).rejects.toBe(error);
        expect(asks()).toBe(1);
        expect(told).toEqual(['answered', trouble]);
      }
    });
  });

  it('aborting its signal ends the walk at once with the reason, also while a page is awaited', async () => {
    const stop = new AbortController();
    const source = endless(1_000);
    const walk = all(paginate({ ...source, budget: walkBudget(roomy), signal: stop.signal }));
    await sleep(10);
    const reason = new Error('the browser went away');
    stop.abort(reason);
    await expect(walk).rejects.toBe(reason);
    expect(source.asked()).toBe(1);
  });
});
