// The policy's hold on a session, decided at each request: who is held, who never is, how long a
// replica trusts the policy it read, and what an unreachable store leaves in force.
import type { SecurityPolicy } from '@card-console/shared/api/security-policy';
import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../platform/sessions/session-store';
import { StoreUnavailableError } from '../../platform/store-unavailable';
import { ManualClock } from '../../test/manual-clock';
import { EnrolmentGate } from './enrolment-gate';

const T0 = Date.UTC(2026, 10, 30, 21, 0);
const onSince = (at: number): SecurityPolicy => ({
  requireSecondFactor: true,
  updatedBy: 'ada@example.test',
  updatedAt: new Date(at).toISOString(),
});

function gate(options: { policy: () => SecurityPolicy; factors?: ('passkey' | 'totp')[] }) {
  const clock = new ManualClock(T0);
  let reads = 0;
  let down = false;
  const warnings: string[] = [];
  const g = new EnrolmentGate({
    policy: async () => ({
      get: async () => {
        reads++;
        if (down) throw new StoreUnavailableError('postgres', 'reading the policy');
        return options.policy();
      },
    }),
    factors: { methods: async () => options.factors ?? [] },
    clock,
    logger: { warn: (_o: unknown, message: string) => warnings.push(message) } as never,
  });
  return {
    g,
    clock,
    reads: () => reads,
    setDown: (value: boolean) => {
      down = value;
    },
    warnings,
  };
}

const session = (over: Partial<SessionRecord> = {}): SessionRecord => ({
  email: 'bo@example.test',
  role: 'finance',
  createdAt: T0 + 1_000,
  lastSeenAt: T0 + 1_000,
  method: 'password',
  ...over,
});

describe('the enrolment gate', () => {
  it('holds a password session begun after the policy was turned on, of a person with no factor', async () => {
    const { g } = gate({ policy: () => onSince(T0) });
    expect(await g.required(session())).toBe(true);
  });

  it('holds nobody while the policy is off, nor anyone with a factor', async () => {
    expect(
      await gate({ policy: () => ({ requireSecondFactor: false }) }).g.required(session()),
    ).toBe(false);
    expect(
      await gate({ policy: () => onSince(T0), factors: ['passkey'] }).g.required(session()),
    ).toBe(false);
  });

  it('leaves sessions that confirmed a factor, single sign-on ones, and ones begun before the policy', async () => {
    const { g, reads } = gate({ policy: () => onSince(T0) });
    expect(await g.required(session({ stepUpAt: T0 + 1_000 }))).toBe(false);
    expect(await g.required(session({ method: 'sso' }))).toBe(false);
    // Those two never read the policy: an admin's request costs nothing here.
    expect(reads()).toBe(0);
    expect(await g.required(session({ createdAt: T0 - 1 }))).toBe(false);
  });

  it('reads the policy at most every 2 s, and at once after `forget`', async () => {
    let policy: SecurityPolicy = { requireSecondFactor: false };
    const { g, clock, reads } = gate({ policy: () => policy });
    expect(await g.required(session())).toBe(false);
    policy = onSince(T0);
    expect(await g.required(session())).toBe(false);
    expect(reads()).toBe(1);
    clock.advance(2_000);
    expect(await g.required(session())).toBe(true);
    policy = { requireSecondFactor: false };
    g.forget();
    expect(await g.required(session())).toBe(false);
    expect(reads()).toBe(3);
  });

  it('an unreachable store leaves the policy last read in force, and says so in the log', async () => {
    const { g, clock, setDown, warnings } = gate({ policy: () => onSince(T0) });
    expect(await g.required(session())).toBe(true);
    setDown(true);
    clock.advance(5_000);
    expect(await g.required(session())).toBe(true);
    expect(warnings).toEqual(['security policy unreadable: the last one read holds']);
    // Before any was read, none: the password was checked, and the app keeps working.
    const fresh = gate({ policy: () => onSince(T0) });
    fresh.setDown(true);
    expect(await fresh.g.required(session())).toBe(false);
  });
});
