// Every route in the table × caller (anonymous, finance, admin) × how they signed in (password,
// single sign-on through a real OpenID Provider) × X-CSRF present/absent × session state
// (fresh; expired by idle time; signed out, old cookie replayed), generated from the same
// endpoint declarations the BFF is built from (`apiEndpoints`).
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import type { Role } from '@card-console/shared/api/meta';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Endpoint, routeOf } from '../core/endpoint';
import { startTestApp, type TestApp, type TestSession } from '../test/harness';
import { routeRequests, ruleKey, send } from '../test/route-requests';
import {
  startTestIdentityProvider,
  type TestIdentityProvider,
} from '../test/test-identity-provider';
import { apiEndpoints } from './api-endpoints';

type Caller = 'anonymous' | Role;
type State = 'fresh' | 'idle-expired' | 'signed-out-replayed';
type Via = 'password' | 'sso';
type Expected = 'allowed' | 401 | 403;

interface Cell {
  rule: Endpoint;
  caller: Caller;
  csrf: boolean;
  state: State;
  via: Via;
  expected: Expected;
}

function expectedFor(rule: Endpoint, caller: Caller, csrf: boolean, state: State): Expected {
  // A navigation (single sign-on) cannot carry the header; its state protects it instead.
  if (!csrf && !rule.navigation) return 401;
  if (rule.access === 'public') return 'allowed';
  if (caller === 'anonymous' || state !== 'fresh') return 401;
  if (rule.access === 'signedIn' || rule.access.includes(caller)) return 'allowed';
  return 403;
}

function cellsOf(rule: Endpoint): Cell[] {
  const cells: Cell[] = [];
  for (const csrf of [true, false]) {
    cells.push({
      rule,
      caller: 'anonymous',
      csrf,
      state: 'fresh',
      via: 'password',
      expected: expectedFor(rule, 'anonymous', csrf, 'fresh'),
    });
    for (const caller of ['finance', 'admin'] as const) {
      for (const via of ['password', 'sso'] as const) {
        for (const state of ['fresh', 'idle-expired', 'signed-out-replayed'] as const) {
          const expected = expectedFor(rule, caller, csrf, state);
          cells.push({ rule, caller, csrf, state, via, expected });
        }
      }
    }
  }
  return cells;
}

const matrix = apiEndpoints.map((rule) => ({ rule, cells: cellsOf(rule) }));

let t: TestApp;
let idp: TestIdentityProvider;
beforeAll(async () => {
  idp = await startTestIdentityProvider('http://localhost:3000');
  t = await startTestApp({ sim: { transactions: 400, rateLimit: false }, identityProvider: idp });
});
afterAll(async () => {
  await t.close();
  await idp.close();
});

/** A session for the cell's caller in the cell's session state, or none for anonymous. */
async function sessionFor(cell: Cell): Promise<TestSession | undefined> {
  if (cell.caller === 'anonymous') return undefined;
  const session = await t.signIn(cell.caller, { via: cell.via });
  if (cell.state === 'idle-expired') t.clock.advance(t.config.session.idleMs);
  if (cell.state === 'signed-out-replayed') {
    const out = await t.request.delete('/api/session').set(session.headers());
    // A single sign-on session is told where to sign out at the provider too.
    expect(out.status).toBe(cell.via === 'sso' ? 200 : 204);
  }
  return session;
}

describe('authorization matrix coverage', () => {
  it('has a request recipe for every route in the table', () => {
    const missing = apiEndpoints.map(ruleKey).filter((key) => !(key in routeRequests));
    expect(missing).toEqual([]);
  });

  it('generates every caller × CSRF × session-state cell for every route', () => {
    const cells = matrix.flatMap((m) => m.cells);
    expect(cells).toHaveLength(apiEndpoints.length * 2 * (1 + 2 * 2 * 3));
    for (const rule of apiEndpoints) {
      const mine = cells.filter((c) => c.rule === rule);
      expect(new Set(mine.map((c) => `${c.caller}/${c.via}/${c.csrf}/${c.state}`)).size).toBe(26);
    }
  });
});

for (const { rule, cells } of matrix) {
  describe(routeOf(rule), () => {
    for (const cell of cells) {
      const who = cell.caller === 'anonymous' ? cell.caller : `${cell.caller} (${cell.via})`;
      const name = `${who}, ${cell.csrf ? 'with' : 'without'} X-CSRF, ${cell.state} → ${cell.expected}`;
      it(name, async () => {
        const session = await sessionFor(cell);
        const cookie = session?.cookie;
        // After the sign-in: an admin's code must be fresher than the one that sign-in used.
        const recipe = await routeRequests[ruleKey(rule)]?.(
          t,
          cell.caller === 'anonymous' ? 'finance' : cell.caller,
          session,
        );
        if (!recipe) throw new Error(`no recipe for ${ruleKey(rule)}`);
        const headers: Record<string, string> = { Origin: t.config.publicOrigin };
        if (cell.csrf) headers['X-CSRF'] = '1';
        if (cookie) headers.Cookie = cookie;
        const res = await send(t, rule.method, recipe.path, headers, recipe.body);

        if (cell.expected === 'allowed' && recipe.allowedAs) {
          expect(res.status, JSON.stringify(res.body)).toBe(recipe.allowedAs.status);
          expect(res.body.code).toBe(recipe.allowedAs.code);
        } else if (cell.expected === 'allowed') {
          expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(200);
          // A navigation answers with a redirect (to the provider, or back into the app).
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(rule.navigation ? 400 : 300);
        } else {
          expect(res.status).toBe(cell.expected);
          const body = apiErrorBodySchema.parse(res.body);
          expect(body.status).toBe(cell.expected);
          if (!cell.csrf && !rule.navigation) expect(body.code).toBe('csrf_required');
          else expect(body.code).toBe(cell.expected === 401 ? 'unauthenticated' : 'forbidden');
        }
      });
    }
  });
}
