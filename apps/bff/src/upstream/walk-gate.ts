import { AppError } from '../core/app-error';

/** How many bulk walks (limit previews, Overview computations) run at once. */
export interface WalkCaps {
  /** At once for one signed-in person. */
  perPerson: number;
  /** At once in this BFF process, everyone together. */
  total: number;
}

/** Walks one person may have waiting for a slot; more are refused at once. */
export const WALKS_WAITING_PER_PERSON = 4;
/** Walks waiting for a slot in all; more are refused at once. */
export const WALKS_WAITING = 32;
/** A walk waits this long for a slot at most, then is refused. */
export const WALK_WAIT_MS = 10_000;
/** Seconds a refused walk is told to wait: previews and day walks take a few seconds. */
export const WALKS_BUSY_RETRY_SECONDS = 5;

export interface WalkGate {
  /**
   * Resolves with the slot's release once `person` may walk (at once, or after waiting in
   * line); rejects with 429 `walks_busy` when the line is full or the wait runs out.
   */
  acquire(person: string): Promise<() => void>;
}

interface Waiter {
  person: string;
  grant: (release: () => void) => void;
  timer: NodeJS.Timeout;
}

/**
 * The cap on concurrent bulk walks, as the CSV export has its own: a flood of previews or new
 * Overview periods runs a few at a time, so it cannot take the card service's rate limit from
 * people's interactive reads. Per process (the circuit breakers are per process too): with
 * several replicas the card service sees at most `total` walks per replica.
 *
 * Waiting is first come, first served, except that a person at their own cap never holds up
 * someone behind them who is not. The line is bounded per person and in all, and so is the
 * wait: a preview waits briefly rather than being refused, but never without end.
 */
export function createWalkGate(caps: WalkCaps): WalkGate & { running(): number } {
  const byPerson = new Map<string, number>();
  let running = 0;
  const line: Waiter[] = [];

  const mayRun = (person: string) =>
    running < caps.total && (byPerson.get(person) ?? 0) < caps.perPerson;

  const take = (person: string) => {
    running += 1;
    byPerson.set(person, (byPerson.get(person) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      running -= 1;
      const left = (byPerson.get(person) ?? 1) - 1;
      if (left > 0) byPerson.set(person, left);
      else byPerson.delete(person);
      next();
    };
  };

  const next = () => {
    const i = line.findIndex((w) => mayRun(w.person));
    if (i < 0) return;
    const [waiter] = line.splice(i, 1);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    waiter.grant(take(waiter.person));
  };

  return {
    running: () => running,
    async acquire(person) {
      if (mayRun(person) && !line.some((w) => w.person === person)) return take(person);
      const mine = line.filter((w) => w.person === person).length;
      if (line.length >= WALKS_WAITING || mine >= WALKS_WAITING_PER_PERSON) throw busy();
      return new Promise((grant, refuse) => {
        const waiter: Waiter = {
          person,
          grant,
          timer: setTimeout(() => {
            line.splice(line.indexOf(waiter), 1);
            refuse(busy());
          }, WALK_WAIT_MS),
        };
        line.push(waiter);
      });
    },
  };
}

function busy(): AppError {
  return new AppError(
    429,
    'walks_busy',
    'Too many previews and Overview computations are running right now. Try again in a few seconds.',
    { retryAfterSeconds: WALKS_BUSY_RETRY_SECONDS },
  );
}
