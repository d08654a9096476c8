/**
 * How a walk paces itself: the gap before each next page and how many pages may be asked for
 * at once, decided from the answers so far. `paginate` asks `gap()` before each page and tells
 * it `answered` (how long the page took) or `busy` (the source asked to come back later); a
 * walk of several parts (`ranged-walk.ts`) can read `atOnce()` to decide how many run.
 */
export interface WalkPace {
  /** Milliseconds to wait before asking for the next page (0: at once). */
  gap(): number;
  /** Pages that may be asked for at once now. */
  atOnce(): number;
  /** A page came, after `ms`. */
  answered(ms: number): void;
  /** The source is busy (a 429, or a 503): it asked for `waitMs` (or did not say). */
  busy(waitMs?: number): void;
}

export interface AdaptivePaceOptions {
  /** Pages at once at the start, and the most ever. */
  startAtOnce: number;
  maxAtOnce: number;
  /** Answers in a row, all quick, before one more page may run at once. */
  growEvery: number;
  /** An answer slower than this is not quick (it does not grow the pace). */
  quickMs: number;
  /** The longest gap between pages, however busy the source says it is. */
  maxGapMs: number;
  /** The gap a busy source gets when it does not say how long to wait. */
  busyGapMs: number;
}

export const adaptivePaceDefaults: AdaptivePaceOptions = {
  startAtOnce: 1,
  maxAtOnce: 8,
  growEvery: 4,
  quickMs: 1_000,
  maxGapMs: 30_000,
  busyGapMs: 1_000,
};

/**
 * A pace that grows while the source answers quickly and backs off when it is busy, as TCP's
 * congestion control does (additive increase, multiplicative decrease): one more page at once
 * after every `growEvery` quick answers in a row, up to `maxAtOnce`; a busy source halves the
 * pages at once (never below one) and sets a gap of what it asked for (or double the last gap),
 * within `maxGapMs`, which each quick answer then halves away again.
 */
export function adaptivePace(options: Partial<AdaptivePaceOptions> = {}): WalkPace {
  const o = { ...adaptivePaceDefaults, ...options };
  let atOnce = Math.min(o.startAtOnce, o.maxAtOnce);
  let gap = 0;
  let quick = 0;
  return {
    gap: () => gap,
    atOnce: () => atOnce,
    answered(ms) {
      if (ms > o.quickMs) {
        quick = 0;
        return;
      }
      gap = gap < 2 ? 0 : Math.floor(gap / 2);
      quick += 1;
      if (quick >= o.growEvery && gap === 0) {
        quick = 0;
        atOnce = Math.min(o.maxAtOnce, atOnce + 1);
      }
    },
    busy(waitMs) {
      quick = 0;
      atOnce = Math.max(1, Math.floor(atOnce / 2));
      gap = Math.min(o.maxGapMs, Math.max(waitMs ?? 0, gap * 2, o.busyGapMs));
    },
  };
}
