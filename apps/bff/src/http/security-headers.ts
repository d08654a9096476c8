import type { RequestHandler, Response } from 'express';
import helmet from 'helmet';
import type { Mode } from '../env';

/**
 * helmet with a strict CSP: everything from our own origin, no inline script, no framing.
 * helmet's answer does not depend on the request, so it is worked out once here and the
 * middleware only copies the finished header values onto each response.
 */
export function securityHeaders(mode: Mode): RequestHandler {
  const headers = headersOf(helmetFor(mode));
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

type Header = [name: string, value: string | number | readonly string[]];

/** Runs a header-only middleware once against a recording response and keeps what it set. */
function headersOf(middleware: RequestHandler): Header[] {
  const set = new Map<string, Header>();
  let done = false;
  const recorder = {
    setHeader(name: string, value: Header[1]) {
      set.set(name.toLowerCase(), [name, value]);
    },
    removeHeader(name: string) {
      set.delete(name.toLowerCase());
    },
  };
  middleware({} as never, recorder as never, (error?: unknown) => {
    if (error) throw error;
    done = true;
  });
  if (!done || set.size === 0) throw new Error('helmet did not set its headers synchronously');
  return [...set.values()];
}

function helmetFor(mode: Mode): RequestHandler {
  const production = mode === 'production';
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        // blob: for a receipt's preview, which the SPA fetches with its X-CSRF header and
        // shows from the bytes it got (an <img src> to /api could not send that header).
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
        // Demo is plain http on localhost: upgrading its requests to https would break it.
        ...(production ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    strictTransportSecurity: production ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    xFrameOptions: { action: 'deny' },
  });
}

/** Nothing under /api may be stored by a browser or a shared cache. */
export function setNoStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}
