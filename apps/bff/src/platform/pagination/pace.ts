import { abortable } from '../abort-fan-out';

/**
 * The pace of the walks over one source (the card service, one API key): how many pages are
 * asked for at once, decided from its answers, as TCP's congestion control decides how much
 * is in flight. The source's own rate limit is what bounds a walk, not a number fixed here:
 *
 * - **Grow while it answers.** The limit starts at `start`; each quick answer (within `slowMs`)
 *   while the limit was in use adds one page at once until the first sign of trouble (slow
 *   start: the limit doubles each round trip), and a page per round trip after it (additive
 *   increase), never above `ceiling`.
 * - **Back off when it is busy.** A 429 halves the limit and holds every turn until the wait it
 *   asked for (`Retry-After`; `busyGapMs` when it said none) has passed: no page is asked for
 *   before then. A slow answer, or a page that failed for the service's overload, halves the
 *   limit too, without a hold. One halving per hold or per `slowMs`, however many answers say
 *   so at once (the pages in flight all meet the same trouble).
 * - **Never above a published limit, and a share of it kept for people.** With `rate` (the
 *   service's published rate limit, set by the operator; the demo's simulator publishes its own),
 *   a turn also takes a token of a bucket of `1 - peopleShare` of its refill and half that of
 *   its burst (turns granted while the thread is busy go out with the next ones). The
 *   service's limit counts people's own calls too, and a write it turns away (429) is not tried
 *   again (a PATCH or a POST never is): walks that used the whole limit would have an admin's
 *   edit refused while the first sync runs.
 * - **The limit shared by the replicas.** The service's limit is its key's, whichever replica
 *   calls: told how many replicas are alive (`share`, from `replica-roll.ts`), the walks' bucket
 *   is that many times smaller, so the replicas' walks together keep to the walks' share.
 *
 * Turns are first come, first served, those of walks someone waits for (`asked`: the Overview,
 * an export, a limit preview) before those of background ones (the index sync). A walk of
 * several date ranges also takes a range slot per range (`range()`): ranges open at once stay
 * about the limit, so each range that is open is walked at the pace and ends soon (what a
 * range ends with is kept, so a sync stopped mid-walk loses little). A free range slot goes to
 * the waiting walk with the fewest ranges open (the earliest of those): first come, first
 * served, the walk whose first page came first took every slot its walkers asked for, and the
 * walk that came last waited for them all. In the demo's first sync the smallest sub account's
 * ranges began 14.5 round trips after its first page and ended the sync at 23.5, with 17 of 32
 * pages in flight on average (`pnpm bench remote-card-service`).
 */
export interface WalkPace {
  /** Resolves when the next page may be asked for; tell the turn how it went. */
  turn(signal?: AbortSignal): Promise<PageTurn>;
  /** Resolves with the release of a range slot once another date range may be walked. */
  range(signal?: AbortSignal): Promise<() => void>;
  /** Pages the pace lets run at once now. */
  limit(): number;
}

export interface PageTurn {
  /** The page came, after `ms`. */
  answered(ms: number): void;
  /** No page: the source was busy (asked to wait `waitMs`, if it said) or overloaded. */
  failed(trouble?: { waitMs?: number }): void;
}

export type WalkKind = 'asked' | 'background';

export interface ServicePace {
  /** The pace as one kind of walk takes its turns. */
  walk(kind: WalkKind): WalkPace;
  /** The source answered 429 to any call (a person's too): asked to wait `waitMs`, if it said. */
  busy(waitMs?: number): void;
  /**
   * How many replicas share the published rate limit, this one included: the walks' bucket is
   * that part of their share (refill and burst). 1 until told; nothing without a published limit.
   */
  share(replicas: number): void;
  /** What the pace is doing now (metrics, tests, benchmarks). */
  state(): PaceState;
}

export interface PaceState {
  limit: number;
  inFlight: number;
  waiting: number;
  rangesOpen: number;
  /** No turn is given before this (Unix ms); 0 when none is held. */
  holdUntil: number;
  /** 429s heard, and halvings made, so far. */
  busy: number;
  backoffs: number;
  /** The replicas the published limit is shared by (`share`), this one included. */
  replicas: number;
}

export interface ServicePaceOptions {
  /** Pages at once at most, however well the source answers. */
  ceiling: number;
  /** Pages at once at the start. */
  start: number;
  /** An answer slower than this is a sign of trouble. */
  slowMs: number;
  /** The hold after a 429 that named no wait. */
  busyGapMs: number;
  /** The longest hold, whatever the source asked for. */
  maxHoldMs: number;
  /** The source's published rate limit: `burst` at once, refilled at `perSecond`. */
  rate?: { perSecond: number; burst: number } | undefined;
  /** The share of a published rate the walks leave to people's own calls. */
  peopleShare: number;
  now: () => number;
}

export const servicePaceDefaults = {
  ceiling: 32,
  start: 8,
  slowMs: 2_000,
  busyGapMs: 1_000,
  maxHoldMs: 60_000,
  peopleShare: 0.2,
  now: Date.now,
} satisfies ServicePaceOptions;

/** What a walk holds: its range slots open now. */
interface Holder {
  open: number;
}

interface Waiter {
  granted: boolean;
  grant: () => void;
  /** The walk waiting; with one, the line serves the walk holding the fewest first. */
  holder?: Holder;
}

/**
 * Two lines, the asked walks' served before the background ones'. Within a line, first come,
 * first served; among waiters that name their walk (`holder`), the walk holding the fewest
 * first, and the earliest of those.
 */
class Lines {
  readonly asked: Waiter[] = [];
  readonly background: Waiter[] = [];
  get length() {
    return this.asked.length + this.background.length;
  }
  shift(): Waiter | undefined {
    const line = this.asked.length > 0 ? this.asked : this.background;
    let at = 0;
    // Turns name no walk: first come, first served without a look along the line.
    for (let i = 1; line[0]?.holder && i < line.length; i++) {
      const fewest = line[at]?.holder?.open ?? 0;
      if ((line[i]?.holder?.open ?? 0) < fewest) at = i;
    }
    const [waiter] = line.splice(at, 1);
    if (waiter) {
      waiter.granted = true;
      if (waiter.holder) waiter.holder.open += 1;
      waiter.grant();
    }
    return waiter;
  }
  /**
   * Waits in `kind`'s line until `shift` grants the turn. Aborted first, it leaves the line; a
   * turn granted as the signal aborted is handed back (`giveBack`).
   */
  async wait(
    kind: WalkKind,
    signal: AbortSignal | undefined,
    pump: () => void,
    giveBack: () => void,
    holder?: Holder,
  ): Promise<void> {
    signal?.throwIfAborted();
    const line = this[kind];
    let waiter: Waiter | undefined;
    const waiting = new Promise<void>((grant) => {
      waiter = { granted: false, grant, ...(holder ? { holder } : {}) };
      line.push(waiter);
    });
    pump();
    if (!signal) return waiting;
    try {
      await abortable(waiting, signal);
    } catch (error) {
      if (waiter?.granted) giveBack();
      else if (waiter) line.splice(line.indexOf(waiter), 1);
      throw error;
    }
  }
}

export function createServicePace(options: Partial<ServicePaceOptions> = {}): ServicePace {
  const o: ServicePaceOptions = { ...servicePaceDefaults, ...options };
  const ceiling = Math.max(1, Math.floor(o.ceiling));
  let limit = Math.min(ceiling, Math.max(1, o.start));
  let threshold = ceiling;
  let inFlight = 0;
  let rangesOpen = 0;
  let holdUntil = 0;
  let calmFrom = 0;
  let busyHeard = 0;
  let backoffs = 0;
  const walks = 1 - Math.min(0.9, Math.max(0, o.peopleShare));
  let replicas = 1;
  // The walks' bucket: their share of the published rate, and half their share of its burst
  // (pages granted while the thread was busy leave together with the next ones granted, and
  // the two must fit in the service's burst), each divided among the replicas alive; a token
  // at least at once.
  const bucketOf = (published: { perSecond: number; burst: number }) => ({
    perSecond: (published.perSecond * walks) / replicas,
    burst: Math.max(1, Math.floor((published.burst * walks) / 2 / replicas)),
  });
  let rate = o.rate && bucketOf(o.rate);
  let tokens = rate ? rate.burst : Number.POSITIVE_INFINITY;
  let filledAt = o.now();
  let timer: NodeJS.Timeout | undefined;
  const turns = new Lines();
  const ranges = new Lines();

  const refill = (now: number) => {
    if (!rate) return;
    tokens = Math.min(rate.burst, tokens + ((now - filledAt) / 1000) * rate.perSecond);
    filledAt = now;
  };

  const pump = () => {
    const now = o.now();
    refill(now);
    while (rangesOpen < Math.ceil(limit) && ranges.length > 0) {
      rangesOpen += 1;
      ranges.shift();
    }
    let wakeAt = 0;
    while (turns.length > 0 && inFlight < Math.floor(limit)) {
      if (now < holdUntil) {
        wakeAt = holdUntil;
        break;
      }
      if (tokens < 1 && rate) {
        wakeAt = now + Math.ceil(((1 - tokens) / rate.perSecond) * 1000);
        break;
      }
      tokens -= 1;
      inFlight += 1;
      turns.shift();
    }
    if (wakeAt > 0 && timer === undefined) {
      timer = setTimeout(
        () => {
          timer = undefined;
          pump();
        },
        Math.max(1, wakeAt - now),
      );
      timer.unref();
    }
  };

  /** Halves the limit, once per `spell` of trouble. */
  const backOff = (now: number, spell: number) => {
    if (now < calmFrom) return;
    calmFrom = now + spell;
    threshold = Math.max(1, Math.floor(limit / 2));
    limit = threshold;
    backoffs += 1;
  };

  const hold = (waitMs: number | undefined) => {
    const now = o.now();
    const wait = Math.min(o.maxHoldMs, Math.max(0, waitMs ?? o.busyGapMs));
    holdUntil = Math.max(holdUntil, now + wait);
    backOff(now, Math.max(wait, 1));
  };

  const walk = (kind: WalkKind): WalkPace => {
    const holder: Holder = { open: 0 };
    return {
      limit: () => Math.floor(limit),
      async turn(signal) {
        await turns.wait(kind, signal, pump, () => {
          inFlight -= 1;
          pump();
        });
        const busyAtStart = inFlight;
        let told = false;
        const end = () => {
          if (told) return false;
          told = true;
          inFlight -= 1;
          return true;
        };
        return {
          answered(ms) {
            if (!end()) return;
            if (ms > o.slowMs) backOff(o.now(), o.slowMs);
            else if (busyAtStart * 2 >= Math.floor(limit)) {
              // Grown only while the limit was in use, never above the ceiling.
              limit = Math.min(ceiling, limit < threshold ? limit + 1 : limit + 1 / limit);
            }
            pump();
          },
          failed(trouble) {
            if (!end()) return;
            if (trouble) {
              if (trouble.waitMs !== undefined) hold(trouble.waitMs);
              else backOff(o.now(), o.slowMs);
            }
            pump();
          },
        };
      },
      async range(signal) {
        await ranges.wait(
          kind,
          signal,
          pump,
          () => {
            rangesOpen -= 1;
            holder.open -= 1;
            pump();
          },
          holder,
        );
        let open = true;
        return () => {
          if (!open) return;
          open = false;
          rangesOpen -= 1;
          holder.open -= 1;
          pump();
        };
      },
    };
  };

  return {
    walk,
    busy(waitMs) {
      busyHeard += 1;
      hold(waitMs);
    },
    share(count) {
      const next = Number.isFinite(count) ? Math.max(1, Math.floor(count)) : 1;
      if (next === replicas || !o.rate) {
        replicas = next;
        return;
      }
      refill(o.now());
      replicas = next;
      rate = bucketOf(o.rate);
      // No more than the smaller bucket holds: tokens saved at a larger share are not spent now.
      tokens = Math.min(tokens, rate.burst);
      pump();
    },
    state: () => ({
      limit: Math.floor(limit),
      inFlight,
      waiting: turns.length,
      rangesOpen,
      holdUntil: holdUntil > o.now() ? holdUntil : 0,
      busy: busyHeard,
      backoffs,
      replicas,
    }),
  };
}
