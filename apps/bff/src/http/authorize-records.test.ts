// The authorizer straight through its dependencies: what it records for refusals the route
// table does not reach over HTTP today (a card number in the path of a mutation other than a
// card's, a foreign Origin on an unknown endpoint, a malformed card id), and a limiter that
// fails rather than refuses.
import type { Request } from 'express';
import type { Logger } from 'pino';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { AppError } from '../core/app-error';
import type { Endpoint } from '../core/endpoint';
import { loadConfig } from '../env';
import type { AuditStore, NewAuditRecord } from '../platform/audit/audit-store';
import { createRateLimiters, memoryRateLimiters } from '../platform/security/rate-limits';
import { declaration } from '../test/declaration';
import { testPan } from '../test/test-pan';
import { captureLogs } from '../test/upstream-client';
import { apiEndpoints } from './api-endpoints';
import { createAuthorizer } from './authorize';

function setUp(overrides: { revealPerUser?: unknown; apiPerUser?: unknown } = {}) {
  const config = loadConfig({ DEMO_MODE: '1' });
  const limiters = {
    ...createRateLimiters(memoryRateLimiters, config.rateLimits, config.session),
    ...overrides,
  } as ReturnType<typeof createRateLimiters>;
  const records: NewAuditRecord[] = [];
  const audit = {
    append: async (record: NewAuditRecord) => {
      records.push(record);
      return { ...record, id: String(records.length), at: 0 };
    },
  } as unknown as AuditStore;
  const logs = captureLogs();
  const authorizer = createAuthorizer({ audit, limiters, logger: logs.logger as Logger });
  return { authorizer, records, logs };
}

const request = (fields: Partial<Request>) =>
  ({ requestId: 'req-authorize-1', params: {}, ...fields }) as Request;
const admin = { email: 'ada@example.test', role: 'admin' } as const;
const finance = { email: 'bob@example.test', role: 'finance' } as const;

/**
 * An endpoint as declared (its audit names and flags), with the access and mutation the test
 * sets; a path no feature declares (`/sub-accounts/:id`) has no declared flags.
 */
const rule = (fields: Partial<Endpoint>): Endpoint => {
  const method = fields.method ?? 'GET';
  const path = fields.path ?? '/cards/:id';
  const declared = apiEndpoints.find((e) => e.method === method && e.path === path);
  return declaration({
    response: 'stream',
    handler() {},
    ...declared,
    method,
    path,
    access: ['admin'],
    mutation: false,
    ...fields,
  });
};

describe('authorizer records', () => {
  it.each(['DELETE', 'PATCH'] as const)(
    'a card number in the path of a %s that is not a card’s: 400, audited as a denial of the route, no card id',
    async (method) => {
      const { authorizer, records } = setUp();
      const subAccountChange = rule({ method, path: '/sub-accounts/:id', mutation: true });
      await expect(
        authorizer.check(subAccountChange, request({ actor: admin, params: { id: testPan(11) } })),
      ).rejects.toMatchObject({ status: 400, code: 'invalid_id' });
      expect(records).toEqual([
        {
          actor: admin.email,
          role: 'admin',
          action: 'access.denied',
          outcome: 'denied',
          target: `${method} /api/sub-accounts/:id`,
          cardId: undefined,
          detail: 'invalid_id',
          requestId: 'req-authorize-1',
        },
      ]);
    },
  );

  it('a card number in place of a card’s id on a card change: recorded as a refused change of that card, masked', async () => {
    const { authorizer, records } = setUp();
    const pan = testPan(14);
    const patchCard = rule({ method: 'PATCH', mutation: true });
    await expect(
      authorizer.check(patchCard, request({ actor: admin, params: { id: pan } })),
    ).rejects.toMatchObject({ status: 400, code: 'invalid_id' });
    expect(records).toMatchObject([
      {
        action: 'card.update',
        outcome: 'denied',
        target: `•••• ${pan.slice(-4)}`,
        cardId: `•••• ${pan.slice(-4)}`,
        detail: 'invalid_id',
      },
    ]);
  });

  it('a card number in place of an id: a card change names no attempt (its action says it), another mutation names what it was attempting', async () => {
    const { authorizer, records } = setUp();
    const pan = testPan(15);
    const patchCard = rule({ method: 'PATCH', mutation: true });
    const renamePasskey = rule({ method: 'PATCH', path: '/passkeys/:id', mutation: true });
    for (const endpoint of [patchCard, renamePasskey]) {
      await expect(
        authorizer.check(endpoint, request({ actor: admin, params: { id: pan } })),
      ).rejects.toMatchObject({ status: 400, code: 'invalid_id' });
    }
    expect(records[0]).not.toHaveProperty('attempted');
    expect(records[1]).toMatchObject({
      action: 'access.denied',
      attempted: 'factors.change',
      target: 'PATCH /api/passkeys/:id',
      detail: 'invalid_id',
    });
    expect(records[1]?.cardId).toBeUndefined();
  });

  it('a malformed card id on a denied card route: the denial is recorded without it', async () => {
    const { authorizer, records } = setUp();
    const patchCard = rule({ method: 'PATCH', mutation: true });
    await expect(
      authorizer.check(patchCard, request({ actor: finance, params: { id: 'no\u0000such id' } })),
    ).rejects.toMatchObject({ status: 403, code: 'forbidden' });
    expect(records).toMatchObject([{ action: 'access.denied', target: 'PATCH /api/cards/:id' }]);
    expect(records[0]?.cardId).toBeUndefined();
  });

  it('a foreign Origin on an endpoint that does not exist: 403, audited with the method, no card id', async () => {
    const { authorizer, records } = setUp();
    await expect(
      authorizer.refuseForeignOrigin(undefined, request({ actor: admin, method: 'POST' })),
    ).rejects.toMatchObject({ status: 403, code: 'bad_origin' });
    expect(records).toEqual([
      {
        actor: admin.email,
        role: 'admin',
        action: 'access.denied',
        outcome: 'denied',
        target: 'POST (no such endpoint)',
        cardId: undefined,
        detail: 'bad_origin',
        requestId: 'req-authorize-1',
      },
    ]);
  });

  it('a reveal limiter that fails (its store is down) is passed on, not recorded as rate limited', async () => {
    const down = new Error('limiter store unreachable');
    const { authorizer, records } = setUp({
      revealPerUser: { consume: () => Promise.reject(down) },
    });
    const reveal = rule({ method: 'POST', path: '/cards/:id/reveal', mutation: true });
    await expect(
      authorizer.check(reveal, request({ actor: admin, params: { id: 'card_1' } })),
    ).rejects.toBe(down);
    expect(records).toEqual([]);
  });

  it('only a refusal by the reveal limit (429) is recorded as rate limited, not another AppError', async () => {
    const unavailable = new AppError(503, 'store_unavailable', 'The limiter is unavailable.');
    const { authorizer, records } = setUp({
      revealPerUser: { consume: () => Promise.reject(unavailable) },
    });
    const reveal = rule({ method: 'POST', path: '/cards/:id/reveal', mutation: true });
    await expect(
      authorizer.check(reveal, request({ actor: admin, params: { id: 'card_1' } })),
    ).rejects.toBe(unavailable);
    expect(records).toEqual([]);
  });

  it('an anonymous call with a card number in a public mutation’s path: 400, nothing recorded or logged as lost', async () => {
    const { authorizer, records, logs } = setUp();
    const publicMutation = rule({
      method: 'POST',
      path: '/things/:id',
      access: 'public',
      mutation: true,
    });
    await expect(
      authorizer.check(publicMutation, request({ params: { id: testPan(13) } })),
    ).rejects.toMatchObject({ status: 400, code: 'invalid_id' });
    expect(records).toEqual([]);
    expect(logs.lines()).toEqual([]);
  });
});

/** What a person reads: a whole sentence, never empty (the wording is not pinned). */
const sentence = /^[A-Z].{3,}\.$/;
/** A limiter with nothing left for either person. */
async function spent() {
  const limiter = new RateLimiterMemory({ points: 1, duration: 60 });
  await limiter.consume(admin.email);
  await limiter.consume(finance.email);
  return limiter;
}

describe('authorizer refusals carry a sentence for the person', () => {
  const cardRule = rule({ method: 'PATCH', mutation: true });

  it('401 unauthenticated without a session', async () => {
    const { authorizer } = setUp();
    await expect(authorizer.check(cardRule, request({}))).rejects.toMatchObject({
      status: 401,
      code: 'unauthenticated',
      message: expect.stringMatching(sentence),
    });
  });

  it('429 rate_limited once the per-user limit is spent', async () => {
    const { authorizer } = setUp({ apiPerUser: await spent() });
    await expect(
      authorizer.check(cardRule, request({ actor: admin, params: { id: 'card_1' } })),
    ).rejects.toMatchObject({
      status: 429,
      code: 'rate_limited',
      message: expect.stringMatching(sentence),
    });
    await expect(
      authorizer.refuseForeignOrigin(cardRule, request({ actor: admin, params: { id: 'card_1' } })),
    ).rejects.toMatchObject({
      status: 429,
      code: 'rate_limited',
      message: expect.stringMatching(sentence),
    });
  });

  it('403 forbidden for a role the route does not allow', async () => {
    const { authorizer } = setUp();
    await expect(
      authorizer.check(cardRule, request({ actor: finance, params: { id: 'card_1' } })),
    ).rejects.toMatchObject({
      status: 403,
      code: 'forbidden',
      message: expect.stringMatching(sentence),
    });
  });

  it('400 invalid_id for a card number in the path, without repeating it', async () => {
    const { authorizer } = setUp();
    const pan = testPan(12);
    const refusal = authorizer.check(cardRule, request({ actor: admin, params: { id: pan } }));
    await expect(refusal).rejects.toMatchObject({
      status: 400,
      code: 'invalid_id',
      message: expect.stringMatching(sentence),
    });
    await expect(refusal).rejects.not.toMatchObject({
      message: expect.stringContaining(pan.slice(-4)),
    });
  });

  it('429 rate_limited once the reveal limit is spent', async () => {
    const { authorizer } = setUp({ revealPerUser: await spent() });
    const reveal = rule({ method: 'POST', path: '/cards/:id/reveal', mutation: true });
    await expect(
      authorizer.check(reveal, request({ actor: admin, params: { id: 'card_1' } })),
    ).rejects.toMatchObject({
      status: 429,
      code: 'rate_limited',
      message: expect.stringMatching(sentence),
    });
  });
});
