// W3C traceparent: taken from the caller when well formed, passed to the card service as a
// child span of the same trace, and written in the log lines with the request id.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import { testPan } from '../test/test-pan';
import type { TestSession } from '../test/test-session';

const traceId = '0af7651916cd43dd8448eb211c80319c';
const callerSpan = 'b7ad6b7169203331';
const traceparent = `00-${traceId}-${callerSpan}-01`;
const sent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

let t: TestApp;
let finance: TestSession;
beforeAll(async () => {
  t = await startTestApp({ recordSimRequests: true, sim: { transactions: 100 } });
  finance = await t.signIn('finance');
});
afterAll(() => t.close());
afterEach(() => t.sim.faults.clear());

const cardId = () => t.sim.data.cards()[0]?.id ?? '';

/** What the simulator received for the card read of one request (its request id). */
function upstreamCalls(requestId: string | undefined) {
  return t.simRequests.filter((r) => r.headers['x-request-id'] === requestId);
}

function logLines(requestId: string | undefined) {
  return t.logs
    .map((l) => JSON.parse(l) as Record<string, unknown> & { req?: { id?: string } })
    .filter((l) => l.requestId === requestId || l.req?.id === requestId);
}

describe('an incoming traceparent', () => {
  it("reaches the card service as a child span of the caller's trace, with its tracestate", async () => {
    const res = await t.request
      .get(`/api/cards/${cardId()}`)
      .set(finance.headers({ traceparent, tracestate: 'acme=00f067aa0ba902b7' }));
    expect(res.status).toBe(200);
    const [call] = upstreamCalls(res.headers['x-request-id']);
    const header = sent.exec(String(call?.headers.traceparent));
    expect(header?.[1]).toBe(traceId);
    expect(header?.[2]).not.toBe(callerSpan);
    expect(header?.[3]).toBe('01');
    expect(call?.headers.tracestate).toBe('acme=00f067aa0ba902b7');
  });

  it('gives each attempt of a retried call a span of its own in the same trace', async () => {
    t.sim.faults.enqueue({ kind: 'status', status: 503, route: 'GET /card/:id' });
    const res = await t.request.get(`/api/cards/${cardId()}`).set(finance.headers({ traceparent }));
    expect(res.status).toBe(200);
    const attempts = upstreamCalls(res.headers['x-request-id']).map((c) =>
      sent.exec(String(c.headers.traceparent)),
    );
    expect(attempts).toHaveLength(2);
    expect(attempts.map((a) => a?.[1])).toEqual([traceId, traceId]);
    expect(attempts[0]?.[2]).not.toBe(attempts[1]?.[2]);
  });

  it('is written with the request id in the request line and the upstream client lines', async () => {
    t.sim.faults.enqueue({ kind: 'status', status: 404, route: 'GET /card/:id' });
    const res = await t.request.get(`/api/cards/${cardId()}`).set(finance.headers({ traceparent }));
    expect(res.status).toBe(404);
    const lines = logLines(res.headers['x-request-id']);
    const requestLine = lines.find((l) => l.msg === 'request completed') as
      | { req: { traceId?: string } }
      | undefined;
    expect(requestLine?.req.traceId).toBe(traceId);
    const upstreamLine = lines.find((l) => l.msg === 'upstream: not found');
    expect(upstreamLine?.traceId).toBe(traceId);
  });
});

describe('without a usable traceparent', () => {
  it.each([
    ['a malformed one', { traceparent: `00-${traceId.toUpperCase()}-${callerSpan}-01` }],
    ['an all-zero trace id', { traceparent: `00-${'0'.repeat(32)}-${callerSpan}-01` }],
    ['none', {}],
  ])('with %s, the request is served in a new trace, passed on and logged', async (_n, extra) => {
    const res = await t.request.get(`/api/cards/${cardId()}`).set(finance.headers(extra));
    expect(res.status).toBe(200);
    const [call] = upstreamCalls(res.headers['x-request-id']);
    const header = sent.exec(String(call?.headers.traceparent));
    const ours = header?.[1] ?? '';
    expect(ours).toMatch(/^[0-9a-f]{32}$/);
    expect(ours).not.toBe(traceId);
    expect(ours).not.toBe('0'.repeat(32));
    expect(header?.[3]).toBe('00');
    expect(call?.headers.tracestate).toBeUndefined();
    const requestLine = logLines(res.headers['x-request-id']).find(
      (l) => l.msg === 'request completed',
    ) as { req: { traceId?: string } } | undefined;
    expect(requestLine?.req.traceId).toBe(ours);
  });

  it('two requests without one are two traces', async () => {
    const a = await t.request.get(`/api/cards/${cardId()}`).set(finance.headers());
    const b = await t.request.get(`/api/cards/${cardId()}`).set(finance.headers());
    const traceOf = (id: string | undefined) =>
      sent.exec(String(upstreamCalls(id)[0]?.headers.traceparent))?.[1];
    expect(traceOf(a.headers['x-request-id'])).toBeDefined();
    expect(traceOf(a.headers['x-request-id'])).not.toBe(traceOf(b.headers['x-request-id']));
  });
});

describe('a traceparent or tracestate holding a card number', () => {
  // Made at run time; a trace id is hex, so 16 decimal digits fit in one.
  const pan = testPan(8_080);
  const hexLetters = 'abcdefabcdefabcd';

  it.each([
    ['its trace id', `00-${pan}${hexLetters}-${callerSpan}-01`],
    ['its trace id, after hex letters', `00-${hexLetters}${pan}-${callerSpan}-01`],
    ['the caller’s span id', `00-${traceId}-${pan}-01`],
  ])('a card number in %s: a new trace, the number never logged', async (_where, header) => {
    const res = await t.request
      .get(`/api/cards/${cardId()}`)
      .set(finance.headers({ traceparent: header, tracestate: 'acme=00f067aa0ba902b7' }));
    expect(res.status).toBe(200);
    const [call] = upstreamCalls(res.headers['x-request-id']);
    const sentTrace = sent.exec(String(call?.headers.traceparent));
    expect(sentTrace?.[1]).toMatch(/^[0-9a-f]{32}$/);
    expect(header).not.toContain(sentTrace?.[1]);
    expect(sentTrace?.[3]).toBe('00');
    expect(call?.headers.tracestate).toBeUndefined();
    const requestLine = logLines(res.headers['x-request-id']).find(
      (l) => l.msg === 'request completed',
    ) as { req: { traceId?: string } } | undefined;
    expect(requestLine?.req.traceId).toBe(sentTrace?.[1]);
    expect(t.logs.join('\n')).not.toContain(pan);
  });

  it('a card number in the tracestate: the trace goes on, the tracestate is not passed on', async () => {
    for (const tracestate of [`acme=${pan}`, `acme=${pan.match(/.{4}/g)?.join(':')}`]) {
      const res = await t.request
        .get(`/api/cards/${cardId()}`)
        .set(finance.headers({ traceparent, tracestate }));
      expect(res.status).toBe(200);
      const [call] = upstreamCalls(res.headers['x-request-id']);
      expect(sent.exec(String(call?.headers.traceparent))?.[1]).toBe(traceId);
      expect(call?.headers.tracestate, tracestate).toBeUndefined();
    }
  });
});

describe('the CSV export', () => {
  it('passes the trace on with every page it reads, and logs it', async () => {
    const sub = t.sim.data.subAccounts()[0]?.id ?? '';
    const res = await t.request
      .get(`/api/transactions/export.csv?subAccountId=${sub}`)
      .set(finance.headers({ traceparent }));
    expect(res.status).toBe(200);
    const calls = upstreamCalls(res.headers['x-request-id']);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls)
      expect(sent.exec(String(call.headers.traceparent))?.[1]).toBe(traceId);
    const finished = logLines(res.headers['x-request-id']).find(
      (l) => l.msg === 'csv export finished',
    );
    expect(finished?.traceId).toBe(traceId);
  });
});
