import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

// An incoming id is kept only when it looks like an id (a proxy's or the SPA's), so a
// caller cannot smuggle log-injection text through it.
const saneId = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.requestId = incoming && saneId.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.requestId);
    next();
  };
}
