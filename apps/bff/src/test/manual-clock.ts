import type { Clock } from '../core/clock';

/** A clock that moves only when a test says so. Starts at a real time so TOTP codes look real. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start = Date.now()) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    if (ms < 0) throw new RangeError('a ManualClock only moves forward');
    this.current += ms;
  }

  set(ms: number): void {
    this.current = ms;
  }
}
