// Two layers end a session: the service's own expiry check and the store's time-to-live. Each
// is tested here with the other switched off, so neither can hide a fault in the other.
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../core/clock';
import { ManualClock } from '../../test/manual-clock';
import { SessionService } from './session-service';
import { MemorySessionStore, type SessionRecord, type SessionStore } from './session-store';

const minute = 60_000;
const idleMs = 15 * minute;
const absoluteMs = 12 * 60 * minute;
const config = {
  cookie: { name: 'cc_session', secure: false },
  session: { idleMs, absoluteMs, stepUpMs: 5 * minute },
  sessionSecret: 'a-secret-for-the-expiry-tests',
};

/** A store that keeps every record for ever, whatever time-to-live it is given. */
class EverlastingStore implements SessionStore {
  readonly entries = new Map<string, SessionRecord>();
  readonly ttls: number[] = [];
  async get(key: string) {
    const record = this.entries.get(key);
    return record && { ...record };
  }
  async set(key: string, record: SessionRecord, ttlMs: number) {
    this.entries.set(key, { ...record });
    this.ttls.push(ttlMs);
  }
  async refresh(key: string, record: SessionRecord, ttlMs: number) {
    if (this.entries.has(key)) await this.set(key, record, ttlMs);
  }
  async delete(key: string) {
    this.entries.delete(key);
  }
}

/** The service with its own expiry check switched off: only the store can end a session. */
class ServiceWithoutExpiryCheck extends SessionService {
  override isExpired(): boolean {
    return false;
  }
}

/** Signs a person in and gives a `load` that sends the cookie the service set. */
async function signIn(service: SessionService) {
  let cookieId = '';
  const res = {
    cookie: (_name: string, value: string) => {
      cookieId = value;
    },
  } as unknown as Response;
  await service.start(
    { headers: {} } as Request,
    res,
    { email: 'a@example.test', role: 'finance' },
    { steppedUp: false },
  );
  const request = () => ({ headers: { cookie: `cc_session=${cookieId}` } }) as Request;
  return {
    /** A call that counts as activity. */
    use: () => service.load(request(), true),
    /** A background poll: reads without extending. */
    poll: () => service.load(request(), false),
  };
}

function setUp(make: (store: SessionStore, clock: Clock) => SessionService, store?: SessionStore) {
  const clock = new ManualClock();
  const chosen = store ?? new EverlastingStore();
  return { clock, store: chosen, service: make(chosen, clock) };
}

describe('the session service ends a session by itself (store keeps everything)', () => {
  const make = (store: SessionStore, clock: Clock) => new SessionService(store, clock, config);

  it('ends it 15 minutes after the last activity, to the millisecond', async () => {
    const { clock, store, service } = setUp(make);
    const person = await signIn(service);
    clock.advance(idleMs - 1);
    expect((await person.poll())?.record.email).toBe('a@example.test');
    clock.advance(1);
    expect(await person.poll()).toBeUndefined();
    // The expired record is removed, not just ignored.
    expect((store as EverlastingStore).entries.size).toBe(0);
    expect(await person.use()).toBeUndefined();
  });

  it('counts the 15 minutes from the last call that counted as activity', async () => {
    const { clock, service } = setUp(make);
    const person = await signIn(service);
    clock.advance(10 * minute);
    expect(await person.use()).toBeDefined();
    clock.advance(idleMs - 1);
    expect(await person.poll()).toBeDefined();
    clock.advance(1);
    expect(await person.poll()).toBeUndefined();
  });

  it('does not count a background poll as activity', async () => {
    const { clock, service } = setUp(make);
    const person = await signIn(service);
    clock.advance(10 * minute);
    expect(await person.poll()).toBeDefined();
    clock.advance(5 * minute);
    expect(await person.poll()).toBeUndefined();
  });

  it('ends it 12 hours after sign-in however active the person is, to the millisecond', async () => {
    const { clock, store, service } = setUp(make);
    const start = clock.now();
    const person = await signIn(service);
    while (clock.now() + 10 * minute < start + absoluteMs) {
      clock.advance(10 * minute);
      expect(await person.use()).toBeDefined();
    }
    clock.set(start + absoluteMs - 1);
    expect(await person.use()).toBeDefined();
    clock.advance(1);
    expect(await person.use()).toBeUndefined();
    expect((store as EverlastingStore).entries.size).toBe(0);
  });
});

describe('the store ends a session by itself (service never checks expiry)', () => {
  const make = (store: SessionStore, clock: Clock) =>
    new ServiceWithoutExpiryCheck(store, clock, config);
  const withMemoryStore = () => {
    const clock = new ManualClock();
    const store = new MemorySessionStore(clock);
    return { clock, store, service: make(store, clock) };
  };

  it('drops it 15 minutes after the last activity, to the millisecond', async () => {
    const { clock, store, service } = withMemoryStore();
    const person = await signIn(service);
    clock.advance(10 * minute);
    expect(await person.use()).toBeDefined();
    clock.advance(idleMs - 1);
    expect(await person.poll()).toBeDefined();
    clock.advance(1);
    expect(await person.poll()).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('drops it 12 hours after sign-in even when the last activity was a minute before', async () => {
    const { clock, store, service } = withMemoryStore();
    const start = clock.now();
    const person = await signIn(service);
    while (clock.now() + 10 * minute < start + absoluteMs) {
      clock.advance(10 * minute);
      expect(await person.use()).toBeDefined();
    }
    clock.set(start + absoluteMs - minute);
    expect(await person.use()).toBeDefined();
    clock.advance(minute - 1);
    expect(await person.poll()).toBeDefined();
    clock.advance(1);
    expect(await person.poll()).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('is told a time-to-live that ends with the session, never longer', async () => {
    const store = new EverlastingStore();
    const { clock, service } = setUp(make, store);
    const start = clock.now();
    const person = await signIn(service);
    expect(store.ttls).toEqual([idleMs]);
    clock.set(start + absoluteMs - 5 * minute);
    await person.use();
    expect(store.ttls.at(-1)).toBe(5 * minute);
  });
});
