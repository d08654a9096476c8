import type { RequestHandler } from 'express';
import { newRequestId } from '../platform/request-ids';
import { holdsCardNumber } from '../platform/security/card-number-ids';
import { type TraceContext, traceFromHeaders } from '../platform/tracing/trace-context';

declare global {
  namespace Express {
    interface Request {
      /** The W3C trace this request runs in (the caller's, or a new one); logged and passed upstream. */
      trace: TraceContext;
    }
  }
}

// An incoming id is kept only when it looks like an id (a proxy's or the SPA's), so a
// caller cannot smuggle log-injection text through it.
const saneId = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * An incoming id worth keeping: id-shaped, and not a card number in disguise, however its
 * digits are grouped. In text a colon writes a time (12:30:45) and does not join digit groups;
 * in an id it is punctuation like `.` or `-`, so `4000:0012:3456:7899` is read as a number too.
 */
function usableIncoming(id: string | undefined): id is string {
  return id !== undefined && saneId.test(id) && !holdsCardNumber(id.replaceAll(':', '-'));
}

/**
 * Gives every request its id (`X-Request-Id`, echoed) and its trace context: a well-formed
 * `traceparent` continues the caller's trace, a missing or malformed one starts a new trace
 * (never an error: tracing is the caller's convenience, not a request's validity).
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.requestId = usableIncoming(incoming) ? incoming : newRequestId();
    req.trace = traceFromHeaders(req.get('traceparent'), req.get('tracestate'));
    res.setHeader('X-Request-Id', req.requestId);
    next();
  };
}
