import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../core/app-error';
import {
  createWalkGate,
  WALK_WAIT_MS,
  WALKS_BUSY_RETRY_SECONDS,
  WALKS_WAITING,
  WALKS_WAITING_PER_PERSON,
} from './walk-gate';

/** What became of an acquire so far: its release once granted, or its refusal. */
function follow(promise: Promise<() => void>) {
  const state: { release?: () => void; refused?: unknown } = {};
  promise.then(
    (release) => {
      state.release = release;
    },
    (error: unknown) => {
      state.refused = error;
    },
  );
  return state;
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

const isBusy = (error: unknown) =>
  error instanceof AppError &&
  error.status === 429 &&
  error.code === 'walks_busy' &&
  error.retryAfterSeconds === WALKS_BUSY_RETRY_SECONDS;

describe('walk gate', () => {
  afterEach(() => vi.useRealTimers());

  it('runs up to the caps at once; the next in line runs when a slot is given back', async () => {
    const gate = createWalkGate({ perPerson: 2, total: 3 });
    const a1 = follow(gate.acquire('a'));
    const a2 = follow(gate.acquire('a'));
    const a3 = follow(gate.acquire('a'));
    const b1 = follow(gate.acquire('b'));
    const b2 = follow(gate.acquire('b'));
    await settle();
    expect([a1, a2, a3, b1, b2].map((s) => s.release !== undefined)).toEqual([
      true,
      true,
      false,
      true,
      false,
    ]);
    expect(gate.running()).toBe(3);
    // One slot back: both waiting may take it; the first in line does.
    a1.release?.();
    await settle();
    expect(a3.release).toBeDefined();
    expect(b2.release).toBeUndefined();
    b1.release?.();
    await settle();
    expect(b2.release).toBeDefined();
    // Giving a slot back twice frees it once.
    b1.release?.();
    expect(gate.running()).toBe(3);
  });

  it('a person at their own cap never holds up someone behind them', async () => {
    const gate = createWalkGate({ perPerson: 1, total: 2 });
    follow(gate.acquire('a'));
    const a2 = follow(gate.acquire('a'));
    const b = follow(gate.acquire('b'));
    await settle();
    expect(a2.release).toBeUndefined();
    expect(b.release).toBeDefined();
  });

  it('the line is bounded per person and in all: beyond it, 429 walks_busy at once', async () => {
    const gate = createWalkGate({ perPerson: 1, total: 1 });
    follow(gate.acquire('a'));
    const mine = Array.from({ length: WALKS_WAITING_PER_PERSON + 1 }, () =>
      follow(gate.acquire('a')),
    );
    await settle();
    expect(mine.filter((s) => s.refused !== undefined).length).toBe(1);
    expect(isBusy(mine[WALKS_WAITING_PER_PERSON]?.refused)).toBe(true);
    const others = Array.from({ length: WALKS_WAITING }, (_, i) => follow(gate.acquire(`p${i}`)));
    await settle();
    const refused = others.filter((s) => s.refused !== undefined);
    expect(refused.length).toBe(WALKS_WAITING_PER_PERSON);
    expect(refused.every((s) => isBusy(s.refused))).toBe(true);
  });

  it('a wait is bounded: refused with 429 walks_busy when it runs out, and leaves the line', async () => {
    vi.useFakeTimers();
    const gate = createWalkGate({ perPerson: 1, total: 1 });
    const first = follow(gate.acquire('a'));
    const second = follow(gate.acquire('a'));
    const third = follow(gate.acquire('a'));
    await vi.advanceTimersByTimeAsync(WALK_WAIT_MS - 1);
    expect(second.refused).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(isBusy(second.refused)).toBe(true);
    expect(isBusy(third.refused)).toBe(true);
    // The line is empty again: the slot given back goes to the next one to ask.
    first.release?.();
    expect(gate.running()).toBe(0);
    const fourth = follow(gate.acquire('a'));
    await vi.advanceTimersByTimeAsync(0);
    expect(fourth.release).toBeDefined();
  });
});
