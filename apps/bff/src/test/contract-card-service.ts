// A card service on loopback that follows the contract (card-service-spec.md) and nothing
// more, serving whatever world a test sets: its ids and cursors are whatever strings the world
// holds. It reads requests as RFC 3986 says (a path segment and each query value are
// percent-decoded; a `+` is a plus, the stricter of the readings a service may use) and keeps
// every request it received, so a test can see exactly what the BFF sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ContractWorld } from './contract-answers';

type Json = Record<string, unknown>;

export interface ReceivedRequest {
  method: string;
  /** The request target as it arrived (path and query, still encoded). */
  url: string;
  /** What the service made of it: the operation, the id it read, or why it answered 4xx. */
  read: string;
}

export interface ContractCardService {
  url: string;
  apiKey: string;
  /** Serves this world from now on (cursors of an earlier one are no longer known). */
  setWorld(world: ContractWorld): void;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

const emptyWorld: ContractWorld = {
  subAccounts: [],
  cards: [],
  transactions: [],
  pageSize: { subAccounts: 1, cards: 1, transactions: 1 },
  cursors: ['c'],
  withCount: false,
};

/** `a=1&b=%20` as RFC 3986 escapes (no `+` for space); undefined when an escape is malformed. */
function readQuery(query: string): Map<string, string> | undefined {
  const out = new Map<string, string>();
  if (query === '') return out;
  try {
    for (const pair of query.split('&')) {
      const eq = pair.indexOf('=');
      const key = decodeURIComponent(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? '' : decodeURIComponent(pair.slice(eq + 1));
      if (out.has(key)) return undefined;
      out.set(key, value);
    }
  } catch {
    return undefined;
  }
  return out;
}

export async function startContractCardService(apiKey: string): Promise<ContractCardService> {
  let world = emptyWorld;
  /** `list key` + NUL + cursor → the offset of the page it stands for. */
  let pages = new Map<string, number>();
  const received: ReceivedRequest[] = [];

  /** The cursor of page `n` (n ≥ 1) of a list: the world's cursors in turn, kept distinct. */
  const cursorOf = (n: number) => {
    const pool = world.cursors;
    const base = pool[(n - 1) % pool.length] as string;
    const round = Math.floor((n - 1) / pool.length);
    return round === 0 ? base : `${base}~${round}`;
  };

  function page(listKey: string, items: unknown[], size: number, cursor: string | undefined) {
    let offset = 0;
    if (cursor !== undefined) {
      const known = pages.get(`${listKey}\u0000${cursor}`);
      if (known === undefined) return undefined;
      offset = known;
    }
    const slice = items.slice(offset, offset + size);
    const metadata: Json = world.withCount ? { count: slice.length } : {};
    if (offset + size < items.length) {
      let next = cursorOf(Math.floor((offset + size) / size));
      // Two pages of one list never share a cursor (a pool entry may read like a reused one).
      while ((pages.get(`${listKey}\u0000${next}`) ?? offset + size) !== offset + size) next += '~';
      pages.set(`${listKey}\u0000${next}`, offset + size);
      metadata.nextCursor = next;
    }
    return { items: slice, metadata };
  }

  function answer(method: string, path: string, query: Map<string, string>) {
    const listKey = `${path}?${[...query]
      .filter(([k]) => k !== 'cursor')
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${v}`)
      .join('&')}`;
    const cursor = query.get('cursor');
    const parts = path.split('/');
    let id: string | undefined;
    if (parts.length === 3) {
      try {
        id = decodeURIComponent(parts[2] as string);
      } catch {
        return { status: 400, read: 'malformed escape in the path' };
      }
    }
    const route = `${method} /${parts[1]}${parts.length === 3 ? '/{id}' : ''}`;
    const listed = (items: unknown[], size: number) => {
      const body = page(listKey, items, size, cursor);
      return body
        ? { status: 200, body, read: route }
        : { status: 400, read: `unknown cursor ${JSON.stringify(cursor)}` };
    };
    switch (parts.length <= 3 ? route : '') {
      case 'GET /sub-account':
        return listed(world.subAccounts, world.pageSize.subAccounts);
      case 'GET /card': {
        const status = query.get('filter:status');
        const cards = world.cards.filter((c) => status === undefined || c.status === status);
        return listed(cards, world.pageSize.cards);
      }
      case 'GET /card/{id}': {
        const card = world.cards.find((c) => c.id === id);
        return card
          ? { status: 200, body: card, read: `${route} ${JSON.stringify(id)}` }
          : { status: 404, read: `no card ${JSON.stringify(id)}` };
      }
      case 'GET /transaction': {
        const sub = query.get('subAccountId');
        if (sub === undefined) return { status: 400, read: 'no subAccountId' };
        const from = Number(query.get('from_date') ?? -Infinity);
        const to = Number(query.get('to_date') ?? Infinity);
        const status = query.get('status');
        const card = query.get('card_id');
        const rows = world.transactions
          .filter((t) => t.subAccountId === sub)
          .map((t) => t.item)
          .filter((t) => {
            const at = Date.parse(t.date as string);
            return (
              at >= from &&
              at <= to &&
              (status === undefined || t.status === status) &&
              (card === undefined || t.cardId === card)
            );
          });
        return listed(rows, world.pageSize.transactions);
      }
      case 'GET /transaction/{id}': {
        const row = world.transactions.find((t) => t.item.id === id);
        return row
          ? { status: 200, body: row.item, read: `${route} ${JSON.stringify(id)}` }
          : { status: 404, read: `no transaction ${JSON.stringify(id)}` };
      }
      default:
        return { status: 404, read: `outside the contract: ${method} ${path}` };
    }
  }

  const server = http.createServer((req, res) => {
    const target = req.url ?? '';
    const q = target.indexOf('?');
    const path = q === -1 ? target : target.slice(0, q);
    const query = readQuery(q === -1 ? '' : target.slice(q + 1));
    const method = req.method ?? '';
    const result =
      req.headers['x-api-key'] !== apiKey
        ? { status: 403, read: 'wrong key' }
        : query === undefined
          ? { status: 400, read: 'malformed or repeated query' }
          : answer(method, path, query);
    received.push({ method, url: target, read: result.read });
    const body =
      'body' in result
        ? result.body
        : { status: result.status, code: `error_${result.status}`, message: result.read };
    const text = JSON.stringify(body);
    res.writeHead(result.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey,
    received,
    setWorld(next) {
      world = next;
      pages = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
