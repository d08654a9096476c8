// Test support: the second-factor pieces a unit test hands to the sign-in and step-up code,
// over a real file store in a fresh temporary directory (removed when the test that asked for
// it ends) and an in-memory challenge store.

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { FileFactorStore } from '../platform/passkeys/file-factor-store';
import { PasskeyCeremonies } from '../platform/passkeys/passkey-ceremonies';
import { SecondFactors } from '../platform/passkeys/second-factors';
import { MemoryOneTimeStore } from '../platform/security/one-time-store';
import { TotpSecretBox } from '../platform/security/totp-secret-box';
import type { UserDirectory } from '../platform/users/user-directory';
import { ManualClock } from './manual-clock';

export async function testSecondFactors(users: UserDirectory, origin = 'http://localhost:3000') {
  const clock = new ManualClock();
  const dir = await mkdtemp(join(tmpdir(), 'factors-test-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const store = await FileFactorStore.open(dir);
  const passkeys = new PasskeyCeremonies({
    origin,
    factors: store,
    challenges: new MemoryOneTimeStore(clock),
    now: () => clock.now(),
  });
  return {
    factors: new SecondFactors(
      users,
      store,
      new TotpSecretBox({ current: randomBytes(32), previous: [] }),
    ),
    passkeys,
    store,
  };
}
