import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/manual-clock';
import { SessionService, sessionStoreKey } from './session-service';
import type { SessionRecord, SessionStore } from './session-store';

const newId = () => randomBytes(32).toString('base64url');

/** A store that remembers the keys it was given. */
class RecordingStore implements SessionStore {
  readonly entries = new Map<string, SessionRecord>();
  async get(key: string) {
    return this.entries.get(key);
  }
  async set(key: string, record: SessionRecord) {
    this.entries.set(key, { ...record });
  }
  async refresh(key: string, record: SessionRecord) {
    if (this.entries.has(key)) this.entries.set(key, { ...record });
  }
  async delete(key: string) {
    this.entries.delete(key);
  }
}

describe('the session store key', () => {
  it('depends on the secret and the id, and is never the id itself', () => {
    const id = newId();
    const key = sessionStoreKey('secret-one', id);
    expect(key).not.toContain(id);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessionStoreKey('secret-one', id)).toBe(key);
    expect(sessionStoreKey('secret-two', id)).not.toBe(key);
    expect(sessionStoreKey('secret-one', newId())).not.toBe(key);
  });

  it('refuses an id of any other length (a longer input would open length extension)', () => {
    const id = newId();
    expect(() => sessionStoreKey('secret', `${id}x`)).toThrow();
    expect(() => sessionStoreKey('secret', id.slice(1))).toThrow();
  });

  it('is what the session service stores a signed-in person under, not the cookie id', async () => {
    const store = new RecordingStore();
    const clock = new ManualClock();
    const service = new SessionService(store, clock, {
      cookie: { name: 'cc_session', secure: false },
      session: { idleMs: 900_000, absoluteMs: 43_200_000, stepUpMs: 300_000 },
      sessionSecret: 'a-secret-for-this-test',
    });
    let cookieId = '';
    const res = {
      cookie: (_name: string, value: string) => {
        cookieId = value;
      },
    } as unknown as Response;
    const req = { headers: {} } as Request;
    await service.start(
      req,
      res,
      { email: 'a@example.test', role: 'finance' },
      { steppedUp: false },
    );

    expect(cookieId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect([...store.entries.keys()]).toEqual([
      sessionStoreKey('a-secret-for-this-test', cookieId),
    ]);
    const next = { headers: { cookie: `cc_session=${cookieId}` } } as Request;
    expect((await service.load(next, true))?.record.email).toBe('a@example.test');
  });
});
