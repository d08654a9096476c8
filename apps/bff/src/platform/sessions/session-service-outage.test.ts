// SessionService while its store cannot write (PostgreSQL away, the session read from the
// replica's cache): a read goes on without recording activity, a session it refuses is refused
// (401, not 503), and any other failure of the store still fails the request.
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/manual-clock';
import { StoreUnavailableError } from '../store-unavailable';
import { ACTIVITY_GRANULARITY_MS, type SessionRegistry, SessionService } from './session-service';
import type { SessionRecord, SessionStore } from './session-store';

const IDLE_MS = 15 * 60_000;

function setUp(options: { allows?: boolean } = {}) {
  const clock = new ManualClock();
  // Keeps records past their limits (as a replica's cache may): the service judges expiry.
  const records = new Map<string, SessionRecord>();
  let failure: Error | undefined;
  const writes = { refresh: 0, delete: 0 };
  // Reads answer; writes fail while `failure` is set.
  const failing: SessionStore = {
    get: async (key) => {
      const record = records.get(key);
      return record && { ...record };
    },
    set: async (key, record) => {
      records.set(key, { ...record });
    },
    async refresh(key, record) {
      writes.refresh++;
      if (failure) throw failure;
      records.set(key, { ...record });
    },
    async delete(key) {
      writes.delete++;
      if (failure) throw failure;
      records.delete(key);
    },
  };
  const seen: string[] = [];
  const registry: SessionRegistry = {
    started: async () => {},
    seen: async (ref) => {
      if (failure) throw failure;
      seen.push(ref);
    },
    ended: async () => {
      if (failure) throw failure;
    },
  };
  const service = new SessionService(
    failing,
    clock,
    {
      cookie: { name: 'cc_session', secure: false },
      session: { idleMs: IDLE_MS, absoluteMs: 12 * 3_600_000, stepUpMs: 5 * 60_000 },
      sessionSecret: 'a-secret-for-the-session-outage-tests',
    },
    { allowsSession: () => options.allows ?? true },
    registry,
  );
  const request = (id: string) => ({ headers: { cookie: `cc_session=${id}` } }) as Request;
  const signIn = async () => {
    let id = '';
    const res = {
      cookie: (_name: string, value: string) => {
        id = value;
      },
    };
    await service.start(
      { headers: {} } as Request,
      res as unknown as Response,
      { email: 'ada@example.test', role: 'finance' },
      { steppedUp: false },
    );
    return id;
  };
  const fail = (error: Error | undefined) => {
    failure = error;
  };
  return { clock, service, request, signIn, fail, writes, seen };
}

const unavailable = () => new StoreUnavailableError('postgres', 'a test');

describe('SessionService with a store that cannot write', () => {
  it('a read that is due to record activity goes on when the store is unavailable; the next one records it', async () => {
    const { clock, service, request, signIn, fail, writes, seen } = setUp();
    const id = await signIn();
    clock.advance(ACTIVITY_GRANULARITY_MS);
    fail(unavailable());
    expect((await service.load(request(id), true))?.record.email).toBe('ada@example.test');
    expect(writes.refresh).toBe(1);
    expect(seen).toEqual([]);
    fail(undefined);
    clock.advance(ACTIVITY_GRANULARITY_MS);
    expect(await service.load(request(id), true)).toBeDefined();
    expect(writes.refresh).toBe(2);
    expect(seen).toHaveLength(1);
  });

  it('a session past its idle limit is refused, not a 503, when its deletion cannot be written', async () => {
    const { clock, service, request, signIn, fail, writes } = setUp();
    const id = await signIn();
    clock.advance(IDLE_MS);
    fail(unavailable());
    expect(await service.load(request(id), true)).toBeUndefined();
    expect(writes.delete).toBe(1);
  });

  it('a session its person may no longer use is refused when its deletion cannot be written', async () => {
    const { service, request, signIn, fail } = setUp({ allows: false });
    const id = await signIn();
    fail(unavailable());
    const req = request(id);
    expect(await service.load(req, true)).toBeUndefined();
    expect(req.actor).toBeUndefined();
  });

  it('any other failure of a write still fails the request', async () => {
    const { clock, service, request, signIn, fail } = setUp();
    const id = await signIn();
    clock.advance(ACTIVITY_GRANULARITY_MS);
    fail(new Error('a statement at fault'));
    await expect(service.load(request(id), true)).rejects.toThrow('a statement at fault');
    clock.advance(IDLE_MS);
    await expect(service.load(request(id), true)).rejects.toThrow('a statement at fault');
  });
});
