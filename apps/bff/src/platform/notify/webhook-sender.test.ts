import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { testPan } from '../../test/test-pan';
import { findCardNumbers } from '../security/card-numbers';
import type { AlertMessage } from './alert-message';
import { retryAfterMs } from './webhook-post';
import {
  createWebhookSender,
  type WebhookDeliveryError,
  type WebhookRetryPolicy,
} from './webhook-sender';
import { verifySignature } from './webhook-signature';
import { type WebhookPolicy, WebhookTargetError, webhookTarget } from './webhook-target';

const secret = 'whsec-test-0123456789abcdef';
const pan = testPan(1_234_567);
const last4 = pan.slice(-4);

const sampleAlert = (): AlertMessage => ({
  ruleName: 'Declines',
  kind: 'transaction_declined',
  transactionId: 'txn_01',
  subAccount: { id: 'sa_1', name: 'Marketing' },
  card: { name: 'Ads card', lastFour: '4242' },
  merchant: `SHOP ${pan} LTD`,
  amount: { cents: 12_345, currency: 'USD' },
  status: 'declined',
  declineReason: 'insufficient funds',
  occurredAt: '2026-11-27T05:20:13.000Z',
  linkPath: '/transactions/txn_01?subAccountId=sa_1',
});

const delivery = {
  id: 'rule_7:txn_01',
  alert: sampleAlert(),
  createdAt: '2026-11-27T05:21:00.000Z',
};

interface Seen {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

type Reply = (res: ServerResponse) => void;
const status =
  (code: number, headers: Record<string, string> = {}): Reply =>
  (res) =>
    res.writeHead(code, headers).end('{}');
/** Holds the request open and never answers. */
const silence: Reply = () => {};

/** A real HTTP receiver on a loopback port answering with `replies` in turn (the last repeats). */
async function startReceiver(replies: Reply[]) {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ at: Date.now(), headers: req.headers, body: Buffer.concat(chunks).toString() });
      const reply = replies[Math.min(seen.length, replies.length) - 1] as Reply;
      reply(res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  return { port, seen, url: `http://127.0.0.1:${port}/hook` };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Loopback receivers need the operator's allowances: http and this address. */
const loopback: WebhookPolicy = { allowInsecure: true, allowList: ['127.0.0.1'] };

function send(url: string, retry: Partial<WebhookRetryPolicy> = {}, policy = loopback) {
  const sender = createWebhookSender({
    publicOrigin: 'https://console.example.com',
    retry: { baseDelayMs: 10, attemptTimeoutMs: 2_000, ...retry },
    random: () => 0.5,
  });
  return sender.send(webhookTarget({ url, secret }, policy), delivery);
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: WebhookDeliveryError) => err,
  );

describe('the webhook sender', () => {
  it('posts the alert as JSON, signed over the timestamp and the raw body', async () => {
    const receiver = await startReceiver([status(204)]);
    const before = Math.floor(Date.now() / 1000);

    const result = await send(receiver.url);

    expect(result).toEqual({
      status: 204,
      attempts: [{ attempt: 1, outcome: 'delivered', status: 204 }],
    });
    expect(receiver.seen).toHaveLength(1);
    const [{ headers, body }] = receiver.seen as [Seen];
    expect(headers['content-type']).toBe('application/json');
    expect(headers['card-console-delivery']).toBe('rule_7:txn_01');
    const timestamp = headers['card-console-timestamp'] as string;
    expect(Number(timestamp)).toBeGreaterThanOrEqual(before);
    // What a receiver computes, written out here rather than taken from the sender's code.
    const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
    expect(headers['card-console-signature']).toBe(`v1=${expected}`);
    const check = { header: headers['card-console-signature'] as string, timestamp, rawBody: body };
    const now = Math.floor(Date.now() / 1000);
    expect(verifySignature({ ...check, secret, nowSeconds: now })).toBe(true);
    expect(verifySignature({ ...check, secret: `${secret}x`, nowSeconds: now })).toBe(false);
    expect(verifySignature({ ...check, rawBody: `${body} `, secret, nowSeconds: now })).toBe(false);
    expect(verifySignature({ ...check, secret, nowSeconds: now + 600 })).toBe(false);

    const payload = JSON.parse(body);
    expect(Object.keys(payload).sort()).toEqual(['alert', 'createdAt', 'id', 'text', 'type']);
    expect(payload).toMatchObject({
      id: 'rule_7:txn_01',
      type: 'alert',
      createdAt: '2026-11-27T05:21:00.000Z',
      alert: { merchant: `SHOP •••• ${last4} LTD`, amount: { cents: 12_345, currency: 'USD' } },
    });
    expect(payload.text).toContain(`SHOP •••• ${last4} LTD`);
    expect(findCardNumbers(body)).toEqual([]);
  });

  it('when the receiver answers 500 twice, the third try delivers it', async () => {
    const receiver = await startReceiver([status(500), status(503), status(200)]);

    const result = await send(receiver.url);

    expect(receiver.seen).toHaveLength(3);
    expect(result.attempts.map((a) => [a.outcome, a.status])).toEqual([
      ['status', 500],
      ['status', 503],
      ['delivered', 200],
    ]);
    // Backoff doubles from the base (jitter fixed at the middle: 3/4 of each step).
    expect(result.attempts.map((a) => a.waitedMs)).toEqual([8, 15, undefined]);
    // Every try is the same delivery, each signed at its own time.
    const ids = receiver.seen.map((s) => s.headers['card-console-delivery']);
    expect(new Set(ids)).toEqual(new Set(['rule_7:txn_01']));
    expect(new Set(receiver.seen.map((s) => s.body)).size).toBe(1);
  });

  it('when the receiver answers 400, does not try again', async () => {
    const receiver = await startReceiver([status(400), status(200)]);

    const error = await failure(send(receiver.url));

    expect(receiver.seen).toHaveLength(1);
    expect(error?.name).toBe('WebhookDeliveryError');
    expect(error?.reason).toBe('rejected');
    expect(error?.retryable).toBe(false);
    expect(error?.attempts).toEqual([{ attempt: 1, outcome: 'status', status: 400 }]);
  });

  it('when the receiver never answers, abandons each try after the timeout and gives up', async () => {
    const receiver = await startReceiver([silence]);
    const started = Date.now();

    const error = await failure(send(receiver.url, { attemptTimeoutMs: 200, maxAttempts: 2 }));

    const elapsed = Date.now() - started;
    expect(receiver.seen).toHaveLength(2);
    expect(error?.reason).toBe('exhausted');
    expect(error?.retryable).toBe(true);
    expect(error?.attempts.map((a) => a.outcome)).toEqual(['timeout', 'timeout']);
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('when the receiver sends its headers but never ends the answer, cuts the try off at the timeout', async () => {
    const receiver = await startReceiver([(res) => res.writeHead(200).write('{')]);
    const started = Date.now();

    const error = await failure(send(receiver.url, { attemptTimeoutMs: 200, maxAttempts: 1 }));

    expect(error?.reason).toBe('exhausted');
    expect(error?.attempts).toEqual([{ attempt: 1, outcome: 'timeout' }]);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('when the receiver answers 429 with Retry-After, waits that long before the next try', async () => {
    const receiver = await startReceiver([status(429, { 'Retry-After': '1' }), status(200)]);

    const result = await send(receiver.url);

    expect(receiver.seen).toHaveLength(2);
    expect(result.attempts[0]).toEqual({
      attempt: 1,
      outcome: 'status',
      status: 429,
      waitedMs: 1000,
    });
    const [first, second] = receiver.seen as [Seen, Seen];
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
  });

  it('waits no longer than the cap when Retry-After asks for more', async () => {
    const receiver = await startReceiver([status(503, { 'Retry-After': '3600' }), status(200)]);

    const result = await send(receiver.url, { maxRetryAfterMs: 150 });

    expect(receiver.seen).toHaveLength(2);
    expect(result.attempts[0]?.waitedMs).toBe(150);
  });

  it('when the receiver cannot be reached, retries then reports it as retryable', async () => {
    const receiver = await startReceiver([status(200)]);
    const url = receiver.url;
    await cleanups.pop()?.();

    const error = await failure(send(url, { maxAttempts: 3 }));

    expect(error?.reason).toBe('exhausted');
    expect(error?.attempts.map((a) => a.outcome)).toEqual(['network', 'network', 'network']);
  });
  it('when the caller aborts (shutting down) during the wait, stops at once', async () => {
    const receiver = await startReceiver([status(500)]);
    const sender = createWebhookSender({
      publicOrigin: 'https://console.example.com',
      retry: { baseDelayMs: 20_000 },
    });
    const controller = new AbortController();
    const started = Date.now();
    const sending = sender.send(
      webhookTarget({ url: receiver.url, secret }, loopback),
      delivery,
      controller.signal,
    );
    while (receiver.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();

    await expect(sending).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(receiver.seen).toHaveLength(1);
  });

  it('reads Retry-After as seconds or as a date', () => {
    const now = Date.parse('2026-11-27T05:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Fri, 27 Nov 2026 05:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Fri, 27 Nov 2026 04:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe('the webhook sender, against server-side request forgery', () => {
  it('refuses http://127.0.0.1 without the allowance, and delivers with it', async () => {
    const receiver = await startReceiver([status(200)]);

    expect(() => webhookTarget({ url: receiver.url, secret }, { allowInsecure: true })).toThrow(
      expect.objectContaining({ reason: 'private_address' }),
    );
    expect(receiver.seen).toHaveLength(0);

    await expect(
      send(receiver.url, {}, { allowInsecure: true, allowList: ['127.0.0.0/8'] }),
    ).resolves.toMatchObject({ status: 200 });
    await expect(
      send(receiver.url, {}, { allowInsecure: true, allowPrivate: true }),
    ).resolves.toMatchObject({ status: 200 });
    expect(receiver.seen).toHaveLength(2);
  });

  it('refuses http: without allowInsecure', async () => {
    const receiver = await startReceiver([status(200)]);
    const refusal = (() => {
      try {
        webhookTarget({ url: receiver.url, secret }, { allowPrivate: true });
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toBeInstanceOf(WebhookTargetError);
    expect((refusal as WebhookTargetError).reason).toBe('insecure_scheme');
  });

  it('refuses, when connecting, a host name that resolves to a loopback address', async () => {
    const receiver = await startReceiver([status(200)]);
    // A public name passes validation; only connecting shows where it leads, and DNS may have
    // changed since: here it leads to this machine (`localhost` itself is refused when saved).
    const checked = webhookTarget(
      { url: `http://hooks.example.com:${receiver.port}/hook`, secret },
      { allowInsecure: true },
    );
    const target = { ...checked, url: new URL(`http://localhost:${receiver.port}/hook`) };
    const sender = createWebhookSender({
      publicOrigin: 'https://console.example.com',
      retry: { baseDelayMs: 10 },
    });

    const error = await failure(sender.send(target, delivery));

    expect(error?.reason).toBe('refused_address');
    expect(error?.retryable).toBe(false);
    expect(error?.attempts).toEqual([{ attempt: 1, outcome: 'refused_address' }]);
    expect(receiver.seen).toHaveLength(0);
  });
});
