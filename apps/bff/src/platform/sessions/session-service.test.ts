// SessionService's promises about the request it is given: which session a sign-in or a
// sign-out ends, and who `req.actor` names afterwards.
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/manual-clock';
import { ROTATED_ID_GRACE_MS, SessionService } from './session-service';
import { MemorySessionStore } from './session-store';

const ada = { email: 'ada@example.test', role: 'admin' } as const;
const bob = { email: 'bob@example.test', role: 'finance' } as const;

function setUp() {
  const clock = new ManualClock();
  const store = new MemorySessionStore(clock);
  const service = new SessionService(store, clock, {
    cookie: { name: 'cc_session', secure: false },
    session: { idleMs: 15 * 60_000, absoluteMs: 12 * 3_600_000, stepUpMs: 5 * 60_000 },
    sessionSecret: 'a-secret-for-the-session-service-tests',
  });
  /** A response that remembers the last session id it was asked to set. */
  const response = () => {
    const res = {
      id: '',
      cookie(_name: string, value: string) {
        res.id = value;
      },
      clearCookie() {},
    };
    return res;
  };
  const request = (id?: string) =>
    ({ headers: id ? { cookie: `cc_session=${id}` } : {} }) as Request;
  const signIn = async (actor: typeof ada | typeof bob, req = request()) => {
    const res = response();
    await service.start(req, res as unknown as Response, actor, { steppedUp: false });
    return res.id;
  };
  return { clock, store, service, request, response, signIn };
}

describe('SessionService', () => {
  it('a sign-in ends the live session the request carried, even one not loaded for it', async () => {
    const { store, service, request, signIn } = setUp();
    const first = await signIn(bob);
    const second = await signIn(ada, request(first));
    expect(await service.load(request(first), false)).toBeUndefined();
    expect((await service.load(request(second), false))?.record.email).toBe(ada.email);
    expect(store.size).toBe(1);
  });

  it('a sign-out ends the session the request holds, also one issued during that request', async () => {
    const { store, service, request, response, signIn } = setUp();
    const first = await signIn(bob);
    const req = request(first);
    await service.load(req, true);
    const second = await signIn(ada, req);
    await service.end(req, response() as unknown as Response);
    expect(await service.load(request(second), false)).toBeUndefined();
    expect(store.size).toBe(0);
    expect(req.actor).toBeUndefined();
  });

  it('a step-up leaves the old id working as it was for a few seconds, then never', async () => {
    const { clock, service, request, response, signIn } = setUp();
    const old = await signIn(bob);
    const req = request(old);
    await service.load(req, true);
    const res = response();
    await service.recordStepUp(req, res as unknown as Response);
    const renewed = res.id;
    expect(renewed).not.toBe(old);

    clock.advance(ROTATED_ID_GRACE_MS - 1);
    const late = await service.load(request(old), true);
    expect(late?.record.email).toBe(bob.email);
    // What the old id had: no step-up. The new id has it.
    expect(late && service.stepUpUntil(late.record)).toBeUndefined();
    const fresh = await service.load(request(renewed), true);
    expect(fresh && service.stepUpUntil(fresh.record)).toBeDefined();
    // Read within the grace (activity written back), it still ends on time.
    clock.advance(1);
    expect(await service.load(request(old), false)).toBeUndefined();
    expect((await service.load(request(renewed), false))?.record.email).toBe(bob.email);
  });

  it('an id a step-up replaced cannot step up, is no session to confirm, and ends at sign-out', async () => {
    const { service, request, response, signIn } = setUp();
    const old = await signIn(ada);
    const first = request(old);
    const { key: oldKey } = (await service.load(first, true)) ?? { key: '' };
    const res = response();
    await service.recordStepUp(first, res as unknown as Response);

    const late = request(old);
    await service.load(late, true);
    await expect(service.recordStepUp(late, response() as unknown as Response)).rejects.toThrow(
      'an id rotated away cannot step up',
    );
    expect(await service.loadByKey(request(), oldKey)).toBeUndefined();

    const current = request(res.id);
    await service.load(current, true);
    await service.end(current, response() as unknown as Response);
    expect(await service.load(request(old), false)).toBeUndefined();
    expect(await service.load(request(res.id), false)).toBeUndefined();
  });

  it('names the person in req.actor after a sign-in and after a step-up', async () => {
    const { service, request, response, signIn } = setUp();
    const req = request();
    await service.start(req, response() as unknown as Response, ada, { steppedUp: true });
    expect(req.actor).toEqual(ada);

    const later = request(await signIn(ada));
    await service.load(later, true);
    await service.recordStepUp(later, response() as unknown as Response);
    expect(later.actor).toEqual(ada);
  });
});
