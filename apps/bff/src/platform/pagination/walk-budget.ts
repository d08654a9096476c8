import type { PlainProblemCode } from '@card-console/shared/api/error';
import { AppError } from '../../core/app-error';
import { onAbort } from '../abort-fan-out';

/**
 * What one walk may spend: a cap on pages (asking for one more fails the walk: "The card
 * service listed sub accounts past 400 pages, …") and a time budget (a page asked or still
 * awaited past it fails the walk: "Reading sub accounts from the card service took longer than
 * 15 s, …"). A list that never ends ends in a clear error, not a walk without end. The card
 * service's limits per kind of walk are in `upstream/walk-limits.ts`.
 */
export interface WalkLimits {
  /** What is walked, as the errors name it: "sub accounts", "transactions". */
  what: string;
  /** Pages read at most; asking for one more fails the walk. */
  maxPages: number;
  /** Milliseconds from the walk's start; a page asked or still awaited past it fails the walk. */
  timeMs: number;
}

/** An error a walk ends with: its status and code (the sentence names the walk). */
export interface WalkFailure {
  status: number;
  code: PlainProblemCode;
}

/** Where pages come from, and what a walk of them fails with. */
export interface PageSource {
  /** In a sentence: "the card service". */
  name: string;
  /** A next cursor already seen in the walk. */
  repeated: WalkFailure;
  /** The page cap reached. */
  tooLong: WalkFailure;
  /** The time budget spent. */
  timeout: WalkFailure;
}

/**
 * The page cap and time budget of one walk, shared by all its parts: the date ranges of an
 * export, the sub accounts and ranges of a limit preview, every day walk of one Overview
 * computation. A part may have tighter limits of its own (`child`).
 */
export interface WalkBudget {
  readonly limits: WalkLimits;
  readonly source: PageSource;
  /** Pages read (or being read) so far. */
  pages(): number;
  /**
   * Reads one page: refused past the page cap or the deadline, and given up at the deadline
   * if the answer has not come by then, or as soon as `signal` aborts (the request itself ends
   * on its own deadline, or when the walk's signal aborts it).
   */
  read<P>(ask: () => Promise<P>, signal?: AbortSignal): Promise<P>;
  /** A part of this walk with limits of its own, starting now; its pages count here too. */
  child(limits: WalkLimits): WalkBudget;
}

export interface WalkBudgetOptions {
  /** Where the pages come from: what the walk's errors name and are. */
  source: PageSource;
  /** The clock the time budget is measured by (the app's clock; `Date.now` by default). */
  now?: () => number;
}

export function walkBudget(limits: WalkLimits, options: WalkBudgetOptions): WalkBudget {
  return new Budget(limits, options.now ?? Date.now, options.source, undefined);
}

class Budget implements WalkBudget {
  private readonly deadline: number;
  private count = 0;

  constructor(
    readonly limits: WalkLimits,
    private readonly now: () => number,
    readonly source: PageSource,
    private readonly parent: Budget | undefined,
  ) {
    this.deadline = now() + limits.timeMs;
  }

  pages(): number {
    return this.count;
  }

  child(limits: WalkLimits): WalkBudget {
    return new Budget(limits, this.now, this.source, this);
  }

  read<P>(ask: () => Promise<P>, signal?: AbortSignal): Promise<P> {
    try {
      signal?.throwIfAborted();
      this.spend();
    } catch (error) {
      return Promise.reject(error);
    }
    // The nearest deadline along the chain is the one that can end this page.
    let nearest: Budget = this;
    for (let b = this.parent; b; b = b.parent) if (b.deadline < nearest.deadline) nearest = b;
    return guard(ask(), nearest.deadline - this.now(), () => nearest.timedOut(), signal);
  }

  /** Counts a page here and in every budget above, unless one of them is spent. */
  private spend(): void {
    for (let b: Budget | undefined = this; b; b = b.parent) {
      if (this.now() >= b.deadline) throw b.timedOut();
      if (b.count >= b.limits.maxPages) throw b.tooLong();
    }
    for (let b: Budget | undefined = this; b; b = b.parent) b.count += 1;
  }

  private timedOut(): AppError {
    const { what, timeMs } = this.limits;
    const { status, code } = this.source.timeout;
    return new AppError(
      status,
      code,
      `Reading ${what} from ${this.source.name} took longer than ${seconds(timeMs)}, so it was stopped. Try again later, or ask for less.`,
    );
  }

  private tooLong(): AppError {
    const { what, maxPages } = this.limits;
    const { status, code } = this.source.tooLong;
    return new AppError(
      status,
      code,
      `${capital(this.source.name)} listed ${what} past ${maxPages.toLocaleString('en-US')} pages, more than Card Console reads at once, so it stopped there.`,
    );
  }
}

/** The error a walk ends with when its source hands back a cursor it already gave. */
export function repeatedPage(source: PageSource): AppError {
  const { status, code } = source.repeated;
  return new AppError(status, code, `${capital(source.name)} repeated a page.`);
}

/**
 * The error a walk ends with when its source keeps naming next pages that bring nothing new
 * (`paginate`'s `keysOf`): fresh cursors to the same rows, or to empty pages, over and over.
 */
export function nothingNew(budget: WalkBudget, pages: number): AppError {
  const { status, code } = budget.source.repeated;
  return new AppError(
    status,
    code,
    `${capital(budget.source.name)} sent ${pages} pages in a row with nothing new while listing ${budget.limits.what}, so Card Console stopped reading.`,
  );
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function seconds(ms: number): string {
  if (ms % 60_000 === 0 && ms >= 120_000) return `${ms / 60_000} minutes`;
  return `${ms / 1000} s`;
}

/**
 * `promise`, or a rejection: `late()` once `ms` have passed without it settling, or the
 * signal's reason as soon as it aborts. One wrapper for both, so a page costs its consumer
 * as few turns of the microtask queue as a bare await would, nearly.
 */
function guard<T>(
  promise: Promise<T>,
  ms: number,
  late: () => Error,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (ms <= 0) {
    promise.catch(() => {});
    return Promise.reject(late());
  }
  return new Promise<T>((resolve, reject) => {
    let stopListening = () => {};
    const give = (error: unknown) => {
      promise.catch(() => {});
      stopListening();
      clearTimeout(timer);
      reject(error);
    };
    const timer = setTimeout(() => give(late()), ms);
    timer.unref();
    if (signal) stopListening = onAbort(signal, () => give(signal.reason));
    promise.then(
      (value) => {
        clearTimeout(timer);
        stopListening();
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        stopListening();
        reject(error);
      },
    );
  });
}
