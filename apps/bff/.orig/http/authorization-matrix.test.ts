// Every route in the table × caller (anonymous, finance, admin) × X-CSRF present/absent ×
// session state (fresh; expired by idle time; signed out, old cookie replayed), generated
// from the same `routeTable` the BFF enforces.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import type { Role } from '@card-console/shared/api/meta';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import { routeRequests, ruleKey, send } from '../test/route-requests';
import { type RouteRule, routeTable } from './route-table';

type Caller = 'anonymous' | Role;
type State = 'fresh' | 'idle-expired' | 'signed-out-replayed';
type Expected = 'allowed' | 401 | 403;

interface Cell {
  rule: RouteRule;
  caller: Caller;
  csrf: boolean;
  state: State;
  expected: Expected;
}

function expectedFor(rule: RouteRule, caller: Caller, csrf: boolean, state: State): Expected {
  if (!csrf) return 401;
  if (rule.access === 'public') return 'allowed';
  if (caller === 'anonymous' || state !== 'fresh') return 401;
  if (rule.access === 'signedIn' || rule.access.includes(caller)) return 'allowed';
  return 403;
}

function cellsOf(rule: RouteRule): Cell[] {
  const cells: Cell[] = [];
  for (const csrf of [true, false]) {
    cells.push({
      rule,
      caller: 'anonymous',
      csrf,
      state: 'fresh',
      expected: expectedFor(rule, 'anonymous', csrf, 'fresh'),
    });
    for (const caller of ['finance', 'admin'] as const) {
      for (const state of ['fresh', 'idle-expired', 'signed-out-replayed'] as const) {
        cells.push({ rule, caller, csrf, state, expected: expectedFor(rule, caller, csrf, state) });
      }
    }
  }
  return cells;
}

const matrix = routeTable.map((rule) => ({ rule, cells: cellsOf(rule) }));

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 400, rateLimit: false } });
});
afterAll(() => t.close());

/** A cookie for the cell's caller in the cell's session state, or none for anonymous. */
async function cookieFor(caller: Caller, state: State): Promise<string | undefined> {
  if (caller === 'anonymous') return undefined;
  const session = await t.signIn(caller);
  if (state === 'idle-expired') t.clock.advance(t.config.session.idleMs);
  if (state === 'signed-out-replayed') {
    const out = await t.request.delete('/api/session').set(session.headers());
    expect(out.status).toBe(204);
  }
  return session.cookie;
}

describe('authorization matrix coverage', () => {
  it('has a request recipe for every route in the table', () => {
    const missing = routeTable.map(ruleKey).filter((key) => !(key in routeRequests));
    expect(missing).toEqual([]);
  });

  it('generates every caller × CSRF × session-state cell for every route', () => {
    const cells = matrix.flatMap((m) => m.cells);
    expect(cells).toHaveLength(routeTable.length * 2 * (1 + 2 * 3));
    for (const rule of routeTable) {
      const mine = cells.filter((c) => c.rule === rule);
      expect(new Set(mine.map((c) => `${c.caller}/${c.csrf}/${c.state}`)).size).toBe(14);
    }
  });
});

for (const { rule, cells } of matrix) {
  describe(`${rule.method} ${rule.path}`, () => {
    for (const cell of cells) {
      const name = `${cell.caller}, ${cell.csrf ? 'with' : 'without'} X-CSRF, ${cell.state} → ${cell.expected}`;
      it(name, async () => {
        const cookie = await cookieFor(cell.caller, cell.state);
        // After the sign-in: an admin's code must be fresher than the one that sign-in used.
        const recipe = await routeRequests[ruleKey(rule)]?.(
          t,
          cell.caller === 'anonymous' ? 'finance' : cell.caller,
        );
        if (!recipe) throw new Error(`no recipe for ${ruleKey(rule)}`);
        const headers: Record<string, string> = { Origin: t.config.publicOrigin };
        if (cell.csrf) headers['X-CSRF'] = '1';
        if (cookie) headers.Cookie = cookie;
        const res = await send(t, rule.method, recipe.path, headers, recipe.body);

        if (cell.expected === 'allowed') {
          expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(200);
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
        } else {
          expect(res.status).toBe(cell.expected);
          const body = apiErrorBodySchema.parse(res.body);
          expect(body.status).toBe(cell.expected);
          if (!cell.csrf) expect(body.code).toBe('csrf_required');
          else expect(body.code).toBe(cell.expected === 401 ? 'unauthenticated' : 'forbidden');
        }
      });
    }
  });
}
