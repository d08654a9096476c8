// Reference point, not a product: the work a correct read path cannot skip, on bare node:http
// with the BFF's own parts and nothing around them. A session lookup (by the BFF's secret-keyed hash), the
// X-CSRF check, one upstream attempt with its timeout (the BFF's sendAttempt), JSON.parse, the
// upstream schema (zod), the PAN/CVV-dropping mapper, JSON.stringify, the BFF's security
// headers and one pino line per request with the BFF's redaction. Left out: the API router,
// rate limits, retries, coalescing, request-id checks, error translation and Express's
// request API. The gap between this and the BFF is what the BFF's structure costs.
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { upstreamCardSchema } from '@card-console/shared/upstream/card';
import { listEnvelopeSchema } from '@card-console/shared/upstream/common';
import { toApiCard } from '../../apps/bff/src/features/cards/card-mapper';
import { securityHeaders } from '../../apps/bff/src/http/security-headers';
import { createLogger, createStdoutDestination } from '../../apps/bff/src/platform/logger';
import { SESSION_ID_LENGTH } from '../../apps/bff/src/platform/sessions/session-cookie';
import { sessionStoreKey } from '../../apps/bff/src/platform/sessions/session-service';
import { sendAttempt } from '../../apps/bff/src/upstream/send-attempt';
import { Agent } from '../../apps/bff/src/upstream/undici-agent';

/** A JSON answer, as the floor's one response type. */
function sendJson(res: ServerResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

const upstream = new URL(process.env.UPSTREAM_URL as string);
const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 10_000, pipelining: 1 });
const pageSchema = listEnvelopeSchema(upstreamCardSchema);
const logger = createLogger('info', createStdoutDestination());
const headers = securityHeaders('production');
const keyOf = (id: string) => sessionStoreKey('floor-session-secret', id);
/** Signed-in sessions, whose ids the benchmark passes in (comma-separated) and sends as `Cookie: sid=…`. */
const sessions = new Map(
  String(process.env.SESSION_IDS)
    .split(',')
    .map((id, i) => [keyOf(id), { email: `bench${i}@example.test` }] as const),
);

const server = createServer(async (req, res) => {
  const started = Date.now();
  const requestId = randomUUID();
  const cookie = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
  const session = cookie?.length === SESSION_ID_LENGTH ? sessions.get(keyOf(cookie)) : undefined;
  headers(req as never, res as never, () => undefined);
  res.setHeader('Cache-Control', 'no-store');
  if (req.headers['x-csrf'] !== '1' || !session) {
    sendJson(res, { status: 401, code: 'unauthenticated' }, 401);
    return;
  }
  // The query as the browser sent it, passed on (the floor does not check it; the BFF does).
  const url = req.url ?? '';
  const at = url.indexOf('?');
  const query = at < 0 ? '' : url.slice(at);
  const outcome = await sendAttempt({
    dispatcher,
    origin: upstream.origin,
    path: `/card${query}`,
    method: 'GET',
    headers: { accept: 'application/json', 'x-api-key': 'bench-key', 'x-request-id': requestId },
    timeoutMs: 10_000,
    maxBodyBytes: 5 * 1024 * 1024,
  });
  const page =
    outcome.kind === 'response' ? pageSchema.safeParse(JSON.parse(outcome.body)) : undefined;
  if (!page?.success) {
    sendJson(res, { status: 502, code: 'upstream_invalid_response' }, 502);
    return;
  }
  const body: { items: unknown[]; nextCursor?: string } = { items: page.data.items.map(toApiCard) };
  if (page.data.metadata.nextCursor) body.nextCursor = page.data.metadata.nextCursor;
  sendJson(res, body);
  logger.info(
    {
      req: { id: requestId, method: req.method, url: req.url, actor: session.email },
      res: { statusCode: res.statusCode },
      responseTime: Date.now() - started,
    },
    'request completed',
  );
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`READY ${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
