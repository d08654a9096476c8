import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildDataset } from './data/dataset';
import type { Card, CardWithSecrets, SubAccount, Transaction } from './data/model';
import type { TransactionText } from './data/transaction-store';
import { applyStep, dropConnection, MALFORMED_JSON, sleep } from './http/apply-fault';
import { createCursorCodec } from './http/cursor-codec';
import { FaultController, type FaultOptions, type FaultStep } from './http/faults';
import { HttpError } from './http/http-error';
import { TokenBucket } from './http/rate-limit';
import { parseJsonBody } from './http/read-request';
import { sendError, sendJson, sendRaw } from './http/respond';
import { RequestStats } from './http/stats';
import { type CardServiceOptions, resolveOptions } from './options';
import { matchRoute } from './routes/route-table';
import {
  addTransaction,
  type NewTransaction,
  newTransactionSchema,
} from './testing/add-transaction';

export interface CardService {
  listen(port?: number, host?: string): Promise<{ url: string; port: number }>;
  close(): Promise<void>;
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  faults: {
    set(options: FaultOptions): void;
    enqueue(...steps: FaultStep[]): void;
    clear(): void;
  };
  stats: {
    count(route: string): number;
    total(): number;
    reset(): void;
    snapshot(): Record<string, number>;
  };
  /** Read-only copies of the current data, for tests. */
  data: {
    subAccounts(): SubAccount[];
    cards(): Card[];
    /** Every transaction of a sub account, newest first (the API's order). */
    transactions(subAccountId: string): Transaction[];
    /** A card with its PAN and CVV, or undefined. */
    card(id: string): CardWithSecrets | undefined;
    transaction(id: string): Transaction | undefined;
  };
  /** Hooks for tests, outside the service's contract: data the API itself never changes. */
  testing: {
    /**
     * Replaces a transaction's free text (description, merchant description, decline reason)
     * in every answer from now on, e.g. to see what a client does with a card number in it.
     * Throws for an unknown id.
     */
    setTransactionText(id: string, text: TransactionText): void;
    /**
     * Adds a transaction dated now (never before the newest one), listed first from then on as
     * the API would list a new one: pages already handed out, and their cursors, are unchanged
     * (a walk resumed from one does not see it); the sub account's balance and spend follow
     * from its status as for every other transaction. With a `cardId` it is a card
     * transaction at a merchant made for it (`description`, `merchantDescription`,
     * `categoryCode`); without, a funding credit or an ACH payment. Throws, naming the problem,
     * for an unknown sub account or card, a card of another sub account, or a status or sign
     * that kind of transaction never has. Also `POST /__testing/transactions` when the service
     * was made with `testRoutes`.
     */
    addTransaction(input: NewTransaction): Transaction;
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Test routes live under this prefix, which no route of the contract uses. */
const TEST_PREFIX = '/__testing/';

/** A caller's request id is echoed back when it is short and plain. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function keyMatches(given: string | string[] | undefined, expected: Buffer): boolean {
  if (typeof given !== 'string') return false;
  const buf = Buffer.from(given, 'utf8');
  return buf.length === expected.length && timingSafeEqual(buf, expected);
}

export function createCardService(options: CardServiceOptions = {}): CardService {
  const config = resolveOptions(options);
  const data = buildDataset({ ...config, nowMs: config.now() });
  const cursors = createCursorCodec();
  const faults = new FaultController(config.seed, config.faults);
  const stats = new RequestStats();
  const expectedKey = Buffer.from(config.apiKey, 'utf8');
  const bucket =
    config.rateLimit === false
      ? undefined
      : new TokenBucket(config.rateLimit.capacity, config.rateLimit.refillPerSecond, config.now);

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://sim.invalid');
    } catch {
      stats.record(`${method} (unmatched)`);
      return sendError(res, 400, 'malformed request target');
    }
    if (config.testRoutes && url.pathname.startsWith(TEST_PREFIX)) {
      return handleTestRoute(req, res, method, url.pathname);
    }
    const match = matchRoute(method, url.pathname);
    stats.record(match.key);
    const requestId = req.headers['x-request-id'];
    if (typeof requestId === 'string' && REQUEST_ID.test(requestId)) {
      res.setHeader('x-request-id', requestId);
    }

    const step = faults.takeStep(method, match.key);
    if (step && (await applyStep(res, step, config.apiKey))) return;
    const latency = faults.latencyMs();
    if (latency > 0) await sleep(latency);
    switch (faults.rollRandom()) {
      case 'drop':
        return dropConnection(res);
      case 'error':
        return sendError(res, 500, 'injected internal error');
      case 'malformed':
        return sendRaw(res, 200, MALFORMED_JSON, JSON_TYPE);
    }

    if (!keyMatches(req.headers['x-api-key'], expectedKey)) {
      return sendError(res, 403, 'missing or invalid x-api-key');
    }
    const token = bucket?.take();
    if (token && !token.ok) {
      const retryAfter = String(token.retryAfterSeconds);
      return sendError(res, 429, 'too many requests', 'rate_limited', {
        'retry-after': retryAfter,
      });
    }
    if (match.kind === 'not_found') return sendError(res, 404, `no route for ${url.pathname}`);
    if (match.kind === 'method_not_allowed') {
      return sendError(res, 405, `${method} is not allowed here`, 'method_not_allowed', {
        allow: match.allow.join(', '),
      });
    }
    const result = await match.handler({
      req,
      query: url.searchParams,
      id: match.id,
      data,
      cursors,
      pageSize: config.pageSize,
    });
    if ('json' in result) sendRaw(res, result.status, result.json, JSON_TYPE);
    else sendJson(res, result.status, result.body);
  }

  /**
   * A test's request: the key is checked as for every request, but it is neither counted,
   * faulted nor rate limited, so a test that scripts faults for its client still sets up its
   * data.
   */
  async function handleTestRoute(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    method: string,
    path: string,
  ): Promise<void> {
    if (!keyMatches(req.headers['x-api-key'], expectedKey)) {
      return sendError(res, 403, 'missing or invalid x-api-key');
    }
    if (path !== `${TEST_PREFIX}transactions`) return sendError(res, 404, `no route for ${path}`);
    if (method !== 'POST') {
      return sendError(res, 405, `${method} is not allowed here`, 'method_not_allowed', {
        allow: 'POST',
      });
    }
    const body = await parseJsonBody(req, newTransactionSchema);
    sendJson(res, 201, addTransaction(data, body, config.now()));
  }

  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent || res.destroyed) return void res.destroy();
      if (error instanceof HttpError) {
        sendError(res, error.status, error.message, error.code, error.headers);
      } else {
        sendError(res, 500, 'unexpected error');
      }
    });
  };

  let server: http.Server | undefined;

  return {
    handler,
    listen(port = 0, host = '127.0.0.1') {
      if (server) return Promise.reject(new Error('card-service-sim is already listening'));
      const s = http.createServer({ keepAliveTimeout: 5_000 }, handler);
      server = s;
      return new Promise((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, host, () => {
          s.off('error', reject);
          const address = s.address() as AddressInfo;
          const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve({ url: `http://${hostPart}:${address.port}`, port: address.port });
        });
      });
    },
    close() {
      const s = server;
      server = undefined;
      if (!s) return Promise.resolve();
      return new Promise((resolve, reject) => {
        s.close((error) => (error ? reject(error) : resolve()));
        s.closeAllConnections();
      });
    },
    faults: {
      set: (o) => faults.set(o),
      enqueue: (...steps) => faults.enqueue(...steps),
      clear: () => faults.clear(),
    },
    stats: {
      count: (route) => stats.count(route),
      total: () => stats.total(),
      reset: () => stats.reset(),
      snapshot: () => stats.snapshot(),
    },
    data: {
      subAccounts: () => data.subAccounts.all(),
      cards: () => data.cards.page({ sort: 'createdAt', direction: 'ASC' }, data.cards.size).items,
      transactions(subAccountId) {
        const sub = data.subAccounts.indexOf(subAccountId);
        if (sub === undefined) return [];
        const rows = data.transactions.rowsOfSub(sub);
        const out: Transaction[] = [];
        for (let k = rows.length - 1; k >= 0; k--)
          out.push(data.transactions.materialize(rows[k] ?? 0));
        return out;
      },
      card: (id) => {
        const card = data.cards.get(id);
        return card ? structuredClone(card) : undefined;
      },
      transaction(id) {
        const row = data.transactions.rowOf(id);
        return row === undefined ? undefined : data.transactions.materialize(row);
      },
    },
    testing: {
      setTransactionText(id, text) {
        const row = data.transactions.rowOf(id);
        if (row === undefined) throw new Error(`card-service-sim: no transaction ${id}`);
        data.transactions.overrideText(row, text);
      },
      addTransaction: (input) => addTransaction(data, input, config.now()),
    },
  };
}
