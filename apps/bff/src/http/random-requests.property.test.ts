// Random query strings, bodies and headers at every /api route, as each kind of caller:
// always a 2xx or a 4xx with the error body, never a 5xx, never a hang.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import type { Role } from '@card-console/shared/api/meta';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import { resolveExample, ruleKey } from '../test/route-requests';
import { settledIndexList } from '../test/settled-index';
import type { TestSession } from '../test/test-session';
import { apiEndpoints } from './api-endpoints';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`random-requests property tests: seed ${seed} (rerun with FC_SEED=${seed})`);
const numRuns = 25;

let t: TestApp;
const sessions: Partial<Record<Role, TestSession>> = {};
beforeAll(async () => {
  // Random sign-in bodies fail a lot; the sign-in limits have their own tests.
  const rateLimits = { signInFailuresPerAccount: 1e6, signInFailuresPerAddress: 1e6 };
  t = await startTestApp({ sim: { transactions: 300, rateLimit: false }, env: { rateLimits } });
  sessions.finance = await t.signIn('finance');
  sessions.admin = await t.signIn('admin');
  // The index opens on first use (the test's in-memory PGlite runs initdb, holding the process
  // for seconds on a loaded machine) and starts its first sync: both done here, as the other
  // index tests do, so each request below is timed on its own, not on that cold start.
  await settledIndexList(t, sessions.finance);
});
afterAll(() => t.close());

const text = fc.string({ unit: 'binary', maxLength: 40 });
const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 40,
});
const knownKeys = [
  'status',
  'sort',
  'direction',
  'cursor',
  'subAccountId',
  'from',
  'to',
  'cardId',
  'name',
];
const queryKey = fc.oneof(
  fc.constantFrom(...knownKeys),
  printable.filter((k) => k.length > 0),
);
const queryValue = fc.oneof(
  fc.constantFrom(
    'ACTIVE',
    'name',
    'createdAt',
    'asc',
    'DESC',
    '0',
    '-1',
    '1e3',
    '99999999999999999999',
  ),
  text,
);
const queryPart = fc
  .array(fc.tuple(queryKey, queryValue, fc.constantFrom('plain', 'array', 'nested', 'repeat')), {
    maxLength: 5,
  })
  .map((pairs) =>
    pairs
      .flatMap(([k, v, style]) => {
        const key = encodeURIComponent(k);
        const value = encodeURIComponent(v);
        if (style === 'array') return [`${key}[]=${value}`];
        if (style === 'nested') return [`${key}[a]=${value}`];
        if (style === 'repeat') return [`${key}=${value}`, `${key}=${value}`];
        return [`${key}=${value}`];
      })
      .join('&'),
  );

const bodyShapes = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      name: fc.oneof(text, fc.integer()),
      reason: fc.oneof(text, fc.constant('a valid enough reason')),
      totp: fc.oneof(fc.stringMatching(/^\d{6}$/), text),
      email: fc.oneof(fc.emailAddress(), text),
      password: text,
      transactionSizeLimit: fc.record(
        { minimumCents: fc.oneof(fc.integer(), fc.double()), maximumCents: fc.integer() },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  ),
);
const rawBody = fc.record({
  contentType: fc.constantFrom(
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json',
  ),
  raw: text,
});

const extraHeaders = fc.record(
  {
    'X-Background': fc.constantFrom('1', '0', 'yes'),
    'X-Request-Id': printable,
    Accept: fc.constantFrom('*/*', 'text/csv', 'application/xml'),
    Origin: fc.constantFrom('https://evil.example', 'null', 'http://localhost:3000'),
    'Accept-Encoding': fc.constantFrom('gzip', 'br', 'identity'),
  },
  { requiredKeys: [] },
);

const scenario = fc.record({
  csrf: fc.integer({ min: 0, max: 9 }).map((n) => n < 8),
  query: queryPart,
  body: fc.oneof(
    bodyShapes.map((json) => ({ json })),
    rawBody,
  ),
  headers: extraHeaders,
  idSegment: fc.option(
    fc.oneof(
      text.map((v) => encodeURIComponent(v) || 'x'),
      // Raw, malformed or tricky escapes, sent as they are.
      fc.constantFrom('%', '%E0%A4%A', '%zz', '%00', '%2F', '..', '%2e%2e', 'a%20b', '%C0%AF'),
    ),
    { nil: undefined },
  ),
});

type Caller = 'anonymous' | Role;

async function cookieFor(caller: Caller, destructive: boolean): Promise<string | undefined> {
  if (caller === 'anonymous') return undefined;
  if (destructive) return (await t.signIn(caller)).cookie;
  return sessions[caller]?.cookie;
}

describe.each(['anonymous', 'finance', 'admin'] as const)('random requests as %s', (caller) => {
  for (const rule of apiEndpoints) {
    it(`${ruleKey(rule)}: 2xx or a 4xx error body, never 5xx or a hang`, async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          let path = resolveExample(t, rule).split('?')[0] ?? '';
          if (s.idSegment !== undefined && rule.path.includes(':id')) {
            path = path.replace(/\/(card|txn)_[^/]+/, `/${s.idSegment}`);
          }
          const example = resolveExample(t, rule).split('?')[1];
          const query = [example, s.query].filter(Boolean).join('&');
          const url = query ? `${path}?${query}` : path;
          const destructive = rule.method === 'DELETE';
          const headers: Record<string, string> = { Origin: t.config.publicOrigin, ...s.headers };
          if (s.csrf) headers['X-CSRF'] = '1';
          const cookie = await cookieFor(caller, destructive);
          if (cookie) headers.Cookie = cookie;

          const m = rule.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
          let req = t.request[m](url).set(headers).timeout({ response: 10_000, deadline: 15_000 });
          if ('raw' in s.body) req = req.set('Content-Type', s.body.contentType).send(s.body.raw);
          else if (s.body.json !== undefined) {
            // Serialized here: superagent cannot send a top-level JSON primitive itself.
            req = req.set('Content-Type', 'application/json').send(JSON.stringify(s.body.json));
          }
          const res = await req.buffer(true).parse((r, done) => {
            let data = '';
            r.setEncoding('utf8');
            r.on('data', (chunk: string) => {
              data += chunk;
            });
            r.on('end', () => done(null, data));
          });

          expect(res.status, `${rule.method} ${url} → ${res.text ?? res.body}`).toBeLessThan(500);
          if (res.status >= 400) {
            const body = apiErrorBodySchema.parse(JSON.parse(String(res.body)));
            expect(body.status).toBe(res.status);
            expect(body.requestId).toBe(res.headers['x-request-id']);
          }
        }),
        { seed, numRuns, endOnFailure: true },
      );
    });
  }
});

describe('random paths under /api', () => {
  it('are answered 4xx with the error body and never reach the upstream', async () => {
    const segment = fc.oneof(
      fc.constantFrom('cards', 'transactions', 'audit', 'session', '..', '', 'export.csv'),
      printable.map((v) => encodeURIComponent(v)),
      fc.constantFrom('%', '%E0%A4%A', '%zz', '%2e%2e', '%2F'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('get', 'post', 'put', 'patch', 'delete'),
        async (segments, method) => {
          const path = `/api/${segments.join('/')}`;
          if (
            apiEndpoints.some(
              (r) =>
                r.method === method.toUpperCase() &&
                new RegExp(`^/api${r.path.replace(/:\w+/g, '[^/]+')}$`).test(path),
            )
          )
            return;
          const before = t.sim.stats.total();
          const res = await t.request[method as 'get'](path)
            .set(sessions.admin?.headers() ?? {})
            .timeout(10_000);
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          apiErrorBodySchema.parse(res.body);
          expect(t.sim.stats.total()).toBe(before);
        },
      ),
      { seed, numRuns: 200 },
    );
  });
});
