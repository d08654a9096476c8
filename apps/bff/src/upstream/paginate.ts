import type { PlainProblemCode } from '@card-console/shared/api/error';
import { AppError } from '../core/app-error';
import { onAbort } from './abort-fan-out';

/**
 * The one way the BFF walks a cursor-paged list (the card service's, or the audit trail's):
 * an async iterator over its pages, as Octokit's `paginate.iterator` or the AWS SDK's
 * paginators are:
 *
 *     for await (const page of paginate({ first, next, cursorOf, budget })) { … }
 *
 * - One rule for a stuck cursor: a next cursor this walk has already seen would loop (the
 *   same page again, or a cycle of pages), so the walk fails at once: 502
 *   `upstream_invalid_response`, "The card service repeated a page."
 * - Every walk is bounded (`WalkBudget`, limits per kind of walk in `walk-limits.ts`): a cap
 *   on pages (asking for one more is 502 `upstream_bad_gateway`, "The card service listed
 *   sub accounts past 400 pages, …") and a time budget (a page asked or still awaited past it
 *   is 504 `upstream_timeout`, "Reading sub accounts from the card service took longer than
 *   15 s, …"). A list that never ends, or is far longer than it should be, ends in a clear
 *   error, not a walk without end.
 * - The next page is asked for before this one is handed over (unless `prefetch` says not
 *   now), so the service's answer time and the consumer's work on a page overlap.
 * - Aborting `signal` ends the walk with the signal's reason, also while a page is awaited.
 *
 * Breaking out of the loop ends the walk; a page asked for ahead and no longer wanted is left
 * to settle on its own (its failure is ignored).
 */
export interface PaginateOptions<P> {
  /** The first page: already read, or how to read it (then counted against the budget). */
  first: P | (() => Promise<P>);
  /** The page after the one whose next cursor is `cursor`. */
  next(cursor: string): Promise<P>;
  /** A page's next cursor; undefined (or empty) on the last page. */
  cursorOf(page: P): string | undefined;
  budget: WalkBudget;
  /** Whether to ask for the next page before handing this one over (default: always). */
  prefetch?: boolean | (() => boolean);
  signal?: AbortSignal;
}

export async function* paginate<P>(o: PaginateOptions<P>): AsyncGenerator<P, void, undefined> {
  const seen = new Set<string>();
  const ask = (cursor: string) => o.budget.read(() => o.next(cursor), o.signal);
  o.signal?.throwIfAborted();
  let page =
    typeof o.first === 'function'
      ? await o.budget.read(o.first as () => Promise<P>, o.signal)
      : o.first;
  for (;;) {
    const cursor = o.cursorOf(page) || undefined;
    if (cursor !== undefined) {
      if (seen.has(cursor)) throw repeatedPage(o.budget.source);
      seen.add(cursor);
    }
    let next: Promise<P> | undefined;
    if (cursor !== undefined && prefetching(o.prefetch)) {
      next = ask(cursor);
      next.catch(() => {}); // awaited below, unless the walk ends first
    }
    yield page;
    if (cursor === undefined) return;
    o.signal?.throwIfAborted();
    page = await (next ?? ask(cursor));
  }
}

const prefetching = (rule: PaginateOptions<unknown>['prefetch']) =>
  typeof rule === 'function' ? rule() : (rule ?? true);

/** What one walk may spend. Each kind of walk has its own (`walk-limits.ts`). */
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

/** The card service, behind every walk but the audit export's. */
export const cardService: PageSource = {
  name: 'the card service',
  repeated: { status: 502, code: 'upstream_invalid_response' },
  tooLong: { status: 502, code: 'upstream_bad_gateway' },
  timeout: { status: 504, code: 'upstream_timeout' },
};

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
  /** The clock the time budget is measured by (the app's clock; `Date.now` by default). */
  now?: () => number;
  source?: PageSource;
}

export function walkBudget(limits: WalkLimits, options: WalkBudgetOptions = {}): WalkBudget {
  return new Budget(limits, options.now ?? Date.now, options.source ?? cardService, undefined);
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

function repeatedPage(source: PageSource): AppError {
  const { status, code } = source.repeated;
  return new AppError(status, code, `${capital(source.name)} repeated a page.`);
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

/** `promise`, or the signal's reason as a rejection as soon as it aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => {
      promise.catch(() => {});
      reject(signal.reason);
    });
    promise.then(
      (value) => {
        stop();
        resolve(value);
      },
      (error: unknown) => {
        stop();
        reject(error);
      },
    );
  });
}
