// SessionService's promises about the request it is given: which session a sign-in or a
// sign-out ends, and who `req.actor` names afterwards.
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/manual-clock';
import { SessionService } from './session-service';
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
  return { store, service, request, response, signIn };
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
