import { createGuardrails, generateSecret, generateSync, generateURI, verifySync } from 'otplib';
import type { Clock } from '../../core/clock';

// The demo secret (DESIGN §2) is 10 bytes, below otplib's 16-byte guardrail; generated
// secrets are 20 bytes, so the lower floor only matters for the demo account.
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });
const periodSeconds = 30;

/**
 * Which time step of a user's codes was last accepted. Async and keyed by email so a shared
 * store (sql-used-code-ledger.ts: one conditional upsert) replaces it for several replicas.
 */
export interface UsedCodeLedger {
  /** True (and remembered) when `timeStep` is later than any step accepted before. */
  claim(email: string, timeStep: number): Promise<boolean>;
}

export class MemoryUsedCodeLedger implements UsedCodeLedger {
  private readonly last = new Map<string, number>();
  async claim(email: string, timeStep: number): Promise<boolean> {
    const previous = this.last.get(email);
    if (previous !== undefined && timeStep <= previous) return false;
    this.last.set(email, timeStep);
    return true;
  }
}

/** RFC 6238 codes (SHA-1, 6 digits, 30 s), one step of drift either way, never twice. */
export class TotpVerifier {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: UsedCodeLedger,
  ) {}

  async verify(email: string, secret: string, code: string): Promise<boolean> {
    const timeStep = this.matchingStep(secret, code);
    if (timeStep === undefined) return false;
    return this.ledger.claim(email, timeStep);
  }

  /**
   * A code from a secret being set up: checked against that secret alone, then its time step
   * claimed so it cannot sign in afterwards. The claim's answer is not asked: a step already
   * claimed (a code of the person's old secret given a moment before) is one no code can use
   * again anyway, and the person should not be told their new app is wrong.
   */
  async verifyNewSecret(email: string, secret: string, code: string): Promise<boolean> {
    const timeStep = this.matchingStep(secret, code);
    if (timeStep === undefined) return false;
    await this.ledger.claim(email, timeStep);
    return true;
  }

  private matchingStep(secret: string, code: string): number | undefined {
    if (!/^\d{6}$/.test(code)) return undefined;
    const result = verifySync({
      secret,
      token: code,
      epoch: Math.floor(this.clock.now() / 1000),
      epochTolerance: periodSeconds,
      guardrails,
    });
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  }
}

/** The code an authenticator app shows at `nowMs`, and the whole seconds until the next one. */
export function currentTotp(secret: string, nowMs: number): { code: string; secondsLeft: number } {
  const epoch = Math.floor(nowMs / 1000);
  const code = generateSync({ secret, epoch, guardrails });
  return { code, secondsLeft: periodSeconds - (epoch % periodSeconds) };
}

export function otpauthUri(email: string, secret: string): string {
  return generateURI({ issuer: 'Card Console', label: email, secret });
}

/** A new secret for someone's authenticator: 160 random bits (RFC 4226's length), base32. */
export const newTotpSecret = (): string => generateSecret({ length: 20 });
