import { createGuardrails, generateSync } from 'otplib';
import type { ManualClock } from './manual-clock';

// The demo admin's secret is 10 bytes, below otplib's default 16-byte floor.
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });

/** The code an authenticator app shows at `nowMs` (RFC 6238: SHA-1, 6 digits, 30 s steps). */
export function totpCodeAt(secret: string, nowMs: number): string {
  return generateSync({ secret, epoch: Math.floor(nowMs / 1000), guardrails });
}

/** The 30-second time step `nowMs` falls in. */
export function totpStepAt(nowMs: number): number {
  return Math.floor(nowMs / 30_000);
}

/**
 * Codes as an authenticator app would show them at the test clock's time. The BFF refuses a
 * code twice, so when this step's code was already handed out the clock moves to the next step.
 */
export class TotpSource {
  private lastStep = -1;

  constructor(
    private readonly clock: ManualClock,
    private readonly secret: string,
  ) {}

  next(): string {
    let step = totpStepAt(this.clock.now());
    if (step <= this.lastStep) {
      this.clock.set((this.lastStep + 1) * 30_000);
      step = this.lastStep + 1;
    }
    this.lastStep = step;
    return totpCodeAt(this.secret, this.clock.now());
  }
}

/** `count` six-digit codes, none of which an authenticator shows within a step of `nowMs`. */
export function wrongTotpCodes(secret: string, nowMs: number, count: number): string[] {
  const valid = new Set([-30_000, 0, 30_000].map((d) => totpCodeAt(secret, nowMs + d)));
  const codes: string[] = [];
  for (let n = 100_000; codes.length < count; n += 7_919) {
    const code = String(n % 1_000_000).padStart(6, '0');
    if (!valid.has(code) && !codes.includes(code)) codes.push(code);
  }
  return codes;
}
