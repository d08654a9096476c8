// An invitation whose email holds a card number, its digits joined by what an address allows
// (dashes, underscores, dots, in runs): a 400 that says so, no invitation, nothing audited.
// Never the audit trail's refusal (503). The number is made at run time; the seed is printed.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { ManualClock } from '../../test/harness';
import {
  FakePersonSessions,
  type PeopleTestApp,
  startPeopleApp,
  type TestCookie,
} from '../../test/people-test-app';
import { writtenCardNumbers } from '../../test/written-card-numbers';
import { PeopleStore } from './people-store';
import { emptyPeople, fileUser } from './people-store.contract';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`invitation emails: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

let engine: SqlEngine;
let store: PeopleStore;
let t: PeopleTestApp;
let ana: TestCookie;

beforeAll(async () => {
  engine = await migratedMemoryEngine();
  await applyIndexMigrations(engine, { info: () => {}, error: () => {} });
  await emptyPeople(engine);
  const clock = new ManualClock();
  store = new PeopleStore(engine, clock);
  // An admin without a TOTP secret: the store keeps none to seal, and the session says stepped up.
  await store.importUsers([{ ...(await fileUser('ana@example.test', 'finance')), role: 'admin' }]);
  t = await startPeopleApp({ store, clock, sessions: new FakePersonSessions() });
  ana = await t.signIn('ana@example.test', 'admin');
}, 60_000);
afterAll(async () => {
  await t?.close();
  await engine?.close();
});

describe('an invitation to an email holding a card number', () => {
  it('is a 400 that says so, whatever joins the digits (property)', async () => {
    const written = writtenCardNumbers({ separators: ['-', '_', '.'], runs: { min: 1, max: 1 } });
    await fc.assert(
      fc.asyncProperty(written, fc.constantFrom('-', '_'), async ({ digits, written }, more) => {
        // Dots alone, or dashes and underscores in runs: what an address may hold.
        const local = written.replaceAll('-', `-${more}`).replaceAll('_', `_${more}`);
        const res = await t.request
          .post('/api/people/invitations')
          .set(t.headers(ana))
          .send({ email: `${local}@example.test`, role: 'finance' });
        expect(res.status, `${local}: ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body.detail).toMatch(/email must not hold a card number/);
        expect(JSON.stringify((await t.audit.list({ limit: 10_000 })).items)).not.toContain(
          digits.slice(0, 12),
        );
      }),
      { seed, numRuns: 25 },
    );
    expect(await store.openInvitations()).toEqual([]);
  }, 60_000);
});
