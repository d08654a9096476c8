import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestListener, type RequestListener } from './request-listener';

/** A tiny app: one page route through Express, and an API that answers from Express's API. */
function listener(): RequestListener {
  const app = express();
  app.set('trust proxy', false);
  app.get('/page', (req, res) => {
    res.type('text').send(`page ${req.query.q} ${req.app === app}`);
  });
  const self: RequestListener = createRequestListener({
    app,
    steps: [
      (_req, res, next) => {
        res.setHeader('X-Step', 'ran');
        next();
      },
    ],
    api: async (req, res) => {
      if (req.query.fail) throw new Error('failed on purpose');
      res.cookie('c', 'v', { httpOnly: true });
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          q: req.query.q,
          ip: req.ip,
          app: req.app === app,
          linked: req.res === res && res.req === req,
          locals: typeof res.locals,
          // Built by the server with the app's classes: no prototype changed afterwards.
          built: Object.getPrototypeOf(req) === self.serverOptions.IncomingMessage.prototype,
        }),
      );
    },
    onError: (error, _req, res, _next) => {
      res.statusCode = 500;
      res.end(`handled: ${(error as Error).message}`);
    },
  });
  return self;
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
});

async function serve(withClasses: boolean): Promise<string> {
  const app = listener();
  const server = withClasses ? http.createServer(app.serverOptions, app) : http.createServer(app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe.each([
  ['built with the app’s classes (as the server runs)', true],
  ['given plain Node objects (adopted per request)', false],
])('request listener, requests %s', (_name, withClasses) => {
  it('gives API calls Express’s request and response API after the steps', async () => {
    const url = await serve(withClasses);
    const res = await fetch(`${url}/api/x?q=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-step')).toBe('ran');
    expect(res.headers.get('set-cookie')).toBe('c=v; Path=/; HttpOnly');
    expect(await res.json()).toEqual({
      q: '1',
      ip: '127.0.0.1',
      app: true,
      linked: true,
      locals: 'object',
      built: withClasses,
    });
  });

  it('sends a failing API call to the error handler', async () => {
    const url = await serve(withClasses);
    const res = await fetch(`${url}/api/x?fail=1`);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('handled: failed on purpose');
  });

  it('routes everything else through the Express app', async () => {
    const url = await serve(withClasses);
    const res = await fetch(`${url}/page?q=2`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('page 2 true');
    expect((await fetch(`${url}/missing`)).status).toBe(404);
  });
});
