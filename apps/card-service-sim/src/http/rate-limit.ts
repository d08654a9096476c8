/** A token bucket on the injected clock; one bucket for the whole service (one API key). */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly capacity: number,
    private readonly refillPerSecond: number,
    private readonly now: () => number,
  ) {
    this.tokens = capacity;
    this.last = now();
  }

  /** Takes a token, or returns the whole seconds to wait before one is available. */
  take(): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const now = this.now();
    const elapsed = Math.max(0, now - this.last) / 1000;
    this.last = now;
    this.tokens = Math.min(this.capacity, this.tokens + elapsed * this.refillPerSecond);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { ok: true };
    }
    const wait = this.refillPerSecond > 0 ? (1 - this.tokens) / this.refillPerSecond : 60;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait)) };
  }
}
