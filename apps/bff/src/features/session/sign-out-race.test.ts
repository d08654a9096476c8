// A sign-out while another request of the same person is in flight: that request read the
// session before the sign-out deleted it and records activity after. Recording activity must
// never bring the session back (with PostgreSQL, the two requests may be on two replicas).

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MemorySessionStore,
  type SessionRecord,
  type SessionStore,
} from '../../platform/sessions/session-store';
import { SqlSessionStore } from '../../platform/sessions/sql-session-store';
import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { postgresEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import { testDatabase } from '../../test/engines/postgres';
import { ManualClock, startTestApp, type TestApp } from '../../test/harness';

/**
 * Passes everything through, except that one chosen read waits, after it has the record, until
 * the test lets it go: the interleaving a busy server produces now and then, made certain.
 */
class GatedStore implements SessionStore {
  private gate: { reached: () => void; held: Promise<void> } | undefined;

  constructor(private readonly inner: SessionStore) {}

  /** The next read pauses once it has the record; resolves when it has. */
  holdNextRead(): { reached: Promise<void>; release: () => void } {
    let release = () => {};
    let reached = () => {};
    const reachedP = new Promise<void>((resolve) => (reached = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    this.gate = { reached, held };
    return { reached: reachedP, release };
  }

  async get(key: string): Promise<SessionRecord | undefined> {
    const record = await this.inner.get(key);
    const gate = this.gate;
    if (gate) {
      this.gate = undefined;
      gate.reached();
      await gate.held;
    }
    return record;
  }
  set(key: string, record: SessionRecord, ttlMs: number) {
    return this.inner.set(key, record, ttlMs);
  }
  refreshes = 0;
  refresh(key: string, record: SessionRecord, ttlMs: number) {
    this.refreshes++;
    return this.inner.refresh(key, record, ttlMs);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }
}

const stores = [
  { name: 'memory', shared: false },
  { name: 'PostgreSQL', shared: true },
] as const;

describe.each(stores)('signing out while a read is in flight (sessions in $name)', ({ shared }) => {
  let t: TestApp;
  let store: GatedStore;
  let close = async () => {};
  beforeAll(async () => {
    const clock = new ManualClock();
    if (shared) {
      const database = await testDatabase();
      const engine = postgresEngine(new pg.Pool({ connectionString: database.url, max: 4 }));
      await applyIndexMigrations(engine, silentLogger);
      store = new GatedStore(new SqlSessionStore(engine));
      close = async () => {
        await engine.close();
        await database.stop();
      };
    } else {
      store = new GatedStore(new MemorySessionStore(clock));
    }
    t = await startTestApp({ clock, sessionStore: store });
  });
  afterAll(async () => {
    await t.close();
    await close();
  });

  it('the read that began before the sign-out does not bring the session back', async () => {
    const session = await t.signIn('finance');
    // Long enough after sign-in that the read records activity (writes the session back).
    t.clock.advance(60_000);
    const gate = store.holdNextRead();
    const read = t.request
      .get('/api/sub-accounts')
      .set(session.headers())
      .then((r) => r);
    await gate.reached;
    const signOut = await t.request.delete('/api/session').set(session.headers());
    expect(signOut.status).toBe(204);
    gate.release();
    // The read itself was allowed (it began while signed in); afterwards the cookie is dead.
    expect((await read).status).toBe(200);
    const later = await t.request.get('/api/session').set(session.headers());
    expect(later.status).toBe(401);
  });

  it('records activity at most every 10 s: a read within it of the last one writes nothing', async () => {
    const session = await t.signIn('finance');
    const read = () => t.request.get('/api/sub-accounts').set(session.headers());
    const before = store.refreshes;
    t.clock.advance(9_000);
    expect((await read()).status).toBe(200);
    expect(store.refreshes).toBe(before);
    t.clock.advance(2_000);
    expect((await read()).status).toBe(200);
    expect(store.refreshes).toBe(before + 1);
    // The idle timeout counts from the activity recorded 11 s after sign-in (a background
    // poll reads the session without counting as activity).
    const poll = () => t.request.get('/api/session').set(session.headers({ 'X-Background': '1' }));
    t.clock.advance(15 * 60_000 - 1_000);
    expect((await poll()).status).toBe(200);
    t.clock.advance(1_000);
    expect((await poll()).status).toBe(401);
  });
});
