import { listCards, patchCard, readCard } from './cards';
import type { RouteHandler } from './context';
import { createSubAccount, listSubAccounts } from './sub-accounts';
import { listTransactions, readTransaction } from './transactions';

interface Route {
  method: string;
  template: string;
  handler: RouteHandler;
}

const routes: Route[] = [
  { method: 'GET', template: '/transaction', handler: listTransactions },
  { method: 'GET', template: '/transaction/:id', handler: readTransaction },
  { method: 'GET', template: '/card', handler: listCards },
  { method: 'GET', template: '/card/:id', handler: readCard },
  { method: 'PATCH', template: '/card/:id', handler: patchCard },
  { method: 'GET', template: '/sub-account', handler: listSubAccounts },
  { method: 'POST', template: '/sub-account', handler: createSubAccount },
];

export type RouteMatch =
  | { kind: 'found'; key: string; handler: RouteHandler; id: string }
  | { kind: 'method_not_allowed'; key: string; allow: string[] }
  | { kind: 'not_found'; key: string };

/** Maps a path to its template: "/card/abc" → "/card/:id" (id percent-decoded). */
function templateOf(path: string): { template: string; id: string } | undefined {
  const parts = path.split('/');
  if (parts[0] !== '' || parts.length < 2 || parts.length > 3) return undefined;
  const base = `/${parts[1]}`;
  if (parts.length === 2) return { template: base, id: '' };
  try {
    const id = decodeURIComponent(parts[2] ?? '');
    return id ? { template: `${base}/:id`, id } : undefined;
  } catch {
    return { template: `${base}/:id`, id: '\u0000' };
  }
}

export function matchRoute(method: string, path: string): RouteMatch {
  const t = templateOf(path);
  const candidates = t ? routes.filter((r) => r.template === t.template) : [];
  if (!t || candidates.length === 0) return { kind: 'not_found', key: `${method} (unmatched)` };
  const key = `${method} ${t.template}`;
  const route = candidates.find((r) => r.method === method);
  if (!route) return { kind: 'method_not_allowed', key, allow: candidates.map((r) => r.method) };
  return { kind: 'found', key, handler: route.handler, id: t.id };
}
