// When the Transactions list and its figures ask again by themselves: every second while the
// index syncs what they show; after a failed sync, once, when its retry time has come (that read
// starts the sync again); otherwise never.
import type { IndexFreshness } from '@card-console/shared/api/transaction-index';
import { describe, expect, it } from 'vitest';
import { askAgainIn, SYNCING_POLL_MS } from './get-index-transactions';

const now = Date.parse('2026-12-01T10:00:00Z');
const fresh: IndexFreshness = { syncing: false, days: 732, daysDone: 732, updatedAt: now - 60_000 };

describe('askAgainIn', () => {
  it('asks every second while a sync runs', () => {
    expect(askAgainIn({ ...fresh, syncing: true, daysDone: 10 }, now)).toBe(SYNCING_POLL_MS);
  });

  it('after a failed sync, asks once its retry time has come, a second past it', () => {
    const failed = {
      reason: 'The card service refused the key.',
      at: now - 5_000,
      retryAt: now + 20_000,
    };
    expect(askAgainIn({ ...fresh, failed }, now)).toBe(21_000);
    // The retry time already passed (a read came late): at the next second.
    expect(askAgainIn({ ...fresh, failed: { ...failed, retryAt: now - 3_000 } }, now)).toBe(
      SYNCING_POLL_MS,
    );
  });

  it('does not ask by itself once synced, or before any answer', () => {
    expect(askAgainIn(fresh, now)).toBe(false);
    expect(askAgainIn(undefined, now)).toBe(false);
  });
});
