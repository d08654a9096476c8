import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { testPan } from '../test/test-pan';
import { captureLogs, ctx, TEST_API_KEY, testClient, useSimulator } from '../test/upstream-client';
import { createUpstreamClient } from './client';

const pan = testPan(2);

const upstream = useSimulator();

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );

describe('answers the client cannot use become stable 502s', () => {
  it('malformed JSON → 502 upstream_invalid_response', async () => {
    const { client } = testClient(upstream.url);
    upstream.sim.faults.enqueue({ kind: 'malformed' });
    expect(await rejection(client.listCards(ctx(), {}))).toMatchObject({
      status: 502,
      code: 'upstream_invalid_response',
    });
    await client.close();
  });

  it('a body that does not match the schema → 502 upstream_invalid_response, logged without values', async () => {
    const { client, logs } = testClient(upstream.url);
    upstream.sim.faults.enqueue({
      kind: 'body',
      body: { items: [{ id: 42, pan: pan }], metadata: {} },
    });
    expect(await rejection(client.listCards(ctx(), {}))).toMatchObject({
      code: 'upstream_invalid_response',
    });
    expect(logs.raw()).toContain('does not match its schema');
    expect(logs.raw()).not.toContain(pan);
    await client.close();
  });

  it('unknown extra fields are tolerated', async () => {
    const { client } = testClient(upstream.url);
    const real = await client.listCards(ctx(), {});
    upstream.sim.faults.enqueue({
      kind: 'body',
      body: {
        items: real.items.map((c) => ({ ...c, brandNewField: { x: 1 } })),
        metadata: { count: 1, extra: true },
      },
    });
    const page = await client.listCards(ctx('admin'), {});
    expect(page.items.length).toBe(real.items.length);
    await client.close();
  });

  it('an HTML error page is tolerated and translated', async () => {
    const { client } = testClient(upstream.url, { maxRetries: 0 });
    upstream.sim.faults.enqueue({ kind: 'html', status: 502 });
    expect(await rejection(client.listCards(ctx(), {}))).toMatchObject({
      status: 502,
      code: 'upstream_error',
    });
    upstream.sim.faults.enqueue({ kind: 'html', status: 200 });
    expect(await rejection(client.listCards(ctx(), {}))).toMatchObject({
      code: 'upstream_invalid_response',
    });
    await client.close();
  });

  it('a redirect is never followed', async () => {
    const { client } = testClient(upstream.url);
    upstream.sim.faults.enqueue({
      kind: 'redirect',
      status: 302,
      location: `${upstream.url}/sub-account`,
    });
    expect(await rejection(client.listCards(ctx(), {}))).toMatchObject({
      status: 502,
      code: 'upstream_bad_gateway',
    });
    expect(upstream.sim.stats.count('GET /card')).toBe(1);
    expect(upstream.sim.stats.count('GET /sub-account')).toBe(0);
    await client.close();
  });

  it('a body over the size limit is refused, not buffered', async () => {
    const { client } = testClient(upstream.url, { maxBodyBytes: 1_000 });
    expect(await rejection(client.listCards(ctx(), {}))).toMatchObject({
      code: 'upstream_invalid_response',
    });
    await client.close();
  });
});

describe('upstream errors people can act on', () => {
  it('a wrong key → 502 upstream_key_rejected and an error-level alarm, never the key in the log', async () => {
    const logs = captureLogs();
    const client = createUpstreamClient({
      baseUrl: upstream.url,
      apiKey: 'wrong-key-zzz',
      logger: logs.logger,
    });
    expect(await rejection(client.listCards(ctx(), {}))).toMatchObject({
      status: 502,
      code: 'upstream_key_rejected',
    });
    const alarm = logs.lines().find((l) => l.alarm === 'upstream_key_rejected');
    expect(alarm?.level).toBe(50);
    expect(logs.raw()).not.toContain('wrong-key-zzz');
    await client.close();
  });

  it('404 → not_found', async () => {
    const { client } = testClient(upstream.url);
    expect(await rejection(client.getCard(ctx(), 'no_such_card'))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    await client.close();
  });

  it('a 400 with a well-formed body carries the service reason', async () => {
    const { client } = testClient(upstream.url);
    upstream.sim.faults.enqueue({
      kind: 'body',
      status: 400,
      body: { status: 400, code: 'limit_refused', message: 'maximum is above the program limit' },
    });
    expect(await rejection(client.listCards(ctx(), {}))).toMatchObject({
      status: 400,
      code: 'upstream_rejected',
      message: 'maximum is above the program limit',
    });
    await client.close();
  });

  it('a 400 with an undocumented or unsafe body gets a generic message', async () => {
    const { client } = testClient(upstream.url);
    upstream.sim.faults.enqueue({
      kind: 'body',
      status: 400,
      body: { error: '<script>x</script>' },
    });
    const error = (await rejection(client.listCards(ctx(), {}))) as Error;
    expect(error).toMatchObject({ status: 400, code: 'upstream_rejected' });
    expect(error.message).not.toContain('script');
    await client.close();
  });

  it('ids no encoding keeps in their path segment never reach the upstream', async () => {
    const { client } = testClient(upstream.url);
    expect(await rejection(client.getCard(ctx(), '..'))).toMatchObject({ status: 400 });
    expect(await rejection(client.getCard(ctx(), '.'))).toMatchObject({ status: 400 });
    expect(upstream.sim.stats.total()).toBe(0);
    await client.close();
  });
});

describe('readiness', () => {
  it('is ready when the upstream answers a read, and says why when it does not', async () => {
    const { client } = testClient(upstream.url);
    await expect(client.checkReady('probe-1')).resolves.toBeUndefined();
    upstream.sim.faults.enqueue({ kind: 'status', status: 403 });
    await expect(client.checkReady('probe-2')).rejects.toMatchObject({
      code: 'upstream_key_rejected',
    });
    await client.close();
  });
});

describe('what goes on the wire', () => {
  it('sends the key and the request id, and nothing from the browser', async () => {
    let seen: IncomingHttpHeaders = {};
    const server = createServer((req, res) => {
      seen = req.headers;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ items: [], metadata: { count: 0 } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const client = createUpstreamClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: TEST_API_KEY,
      logger: captureLogs().logger,
    });
    await client.listSubAccounts(ctx('finance', 'req-abc-123'), {});
    expect(seen['x-api-key']).toBe(TEST_API_KEY);
    expect(seen['x-request-id']).toBe('req-abc-123');
    expect(Object.keys(seen).sort()).toEqual([
      'accept',
      'connection',
      'host',
      'x-api-key',
      'x-request-id',
    ]);
    await client.close();
    server.close();
  });
});
