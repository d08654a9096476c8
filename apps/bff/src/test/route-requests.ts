import type { Role } from '@card-console/shared/api/meta';
import { type Endpoint, routeOf } from '../core/endpoint';
import type { TestApp, TestSession } from './harness';
import { pdfReceipt } from './receipt-files';
import { SoftwareAuthenticator } from './software-authenticator';
import { ssoPeople } from './test-identity-provider';

/** How to call a route so that an allowed caller gets a 2xx (3xx for a navigation). */
export interface RouteRequest {
  path: string;
  /** JSON, CSV text for a route that declares a `text/csv` body, or a file's bytes. */
  body?: Record<string, unknown> | string | Buffer;
  /**
   * What an allowed caller gets instead of a 2xx, where the route's own rules refuse this
   * kind of session after authorization passed (TOTP settings for a single sign-on admin).
   */
  allowedAs?: { status: number; code: string };
}

/** `session`: the cell's session (a recipe may prepare with it), when the caller has one. */
type Spec = (t: TestApp, role: Role, session?: TestSession) => RouteRequest | Promise<RouteRequest>;

/** The email a session belongs to. */
const emailOf = (t: TestApp, role: Role, session?: TestSession) =>
  session?.via === 'sso' ? ssoPeople[role].email : t.credentials[role].email;

/**
 * Makes sure the admin behind `session` has a passkey of the harness's authenticator, enrolled
 * through the API (with the session when it is live; a password admin's through a fresh one).
 */
async function enrolledPasskeyOf(t: TestApp, session: TestSession): Promise<void> {
  const email = emailOf(t, 'admin', session);
  const ours = new Set(t.authenticator.passkeys.map((p) => p.id));
  if ((await t.factors.get(email)).passkeys.some((p) => ours.has(p.id))) return;
  if (session.via === 'password') {
    await t.enrolAdminPasskey();
    return;
  }
  const options = await t.request
    .post('/api/passkeys/registration-options')
    .set(session.headers())
    .send({});
  // An ended session: the cell expects a refusal anyway.
  if (options.status !== 200) {
    if (options.status !== 401) throw new Error(`options: ${JSON.stringify(options.body)}`);
    return;
  }
  const response = t.authenticator.create(options.body, t.config.publicOrigin);
  await t.request
    .post('/api/passkeys')
    .set(session.headers())
    .send({ name: 'SSO passkey', response });
}

/**
 * A passkey of this person's, put straight into the store (its key is never used): one fixed
 * id per person, so recipes that run again and again never pile passkeys up.
 */
async function storedPasskeyOf(t: TestApp, email: string): Promise<string> {
  const id = Buffer.from(`matrix:${email}`).toString('base64url');
  await t.factors.addPasskey(email, {
    id,
    publicKey: 'cHVibGljLWtleQ',
    counter: 0,
    name: 'Matrix passkey',
    createdAt: 1,
  });
  return id;
}

/** Ids the simulator really has, so example paths resolve to real resources. */
export function exampleIds(t: TestApp) {
  const subAccount = t.sim.data.subAccounts()[0];
  const card = t.sim.data.cards()[0];
  const transaction = subAccount ? t.sim.data.transactions(subAccount.id)[0] : undefined;
  if (!subAccount || !card || !transaction)
    throw new Error('the simulator has no data to test with');
  return {
    subAccountId: subAccount.id,
    cardId: card.id,
    transactionId: transaction.id,
    // Well formed; an export with this id exists only where a recipe ran one.
    exportRequestId: 'req-example-0001',
    // Well formed; nobody has this passkey.
    passkeyId: 'cGFzc2tleS1leGFtcGxl',
    // Well formed; no accounting category has this id, no merchant rule or receipt these.
    categoryId: 'category-example',
    ruleId: 'rule-example',
    receiptId: 'receipt-example',
  };
}

export function resolveExample(t: TestApp, rule: Endpoint): string {
  const ids = exampleIds(t);
  return rule.example.replace(/\{(\w+)\}/g, (_, name: keyof typeof ids) =>
    encodeURIComponent(ids[name]),
  );
}

/**
 * One entry per endpoint declaration, keyed `METHOD path`. The coverage test fails when a
 * declaration has no entry here, so a new endpoint cannot skip the generated tests.
 */
let matrixCategories = 0;
let matrixReceipts = 0;

/** The path of a receipt put straight into the store, on a transaction of its own. */
async function storedReceipt(t: TestApp): Promise<string> {
  const id = receiptTransaction(t);
  const { receipt } = await (await t.stores.annotations()).addReceipt(
    id,
    { fileName: 'matrix.pdf', mediaType: 'application/pdf', content: pdfReceipt() },
    1_000,
    'matrix@example.test',
    new Date(t.clock.now()),
  );
  return `/api/transactions/${id}/receipts/${receipt.id}`;
}

/** A transaction of the simulator's first sub account, a different one each call (cycling). */
function receiptTransaction(t: TestApp): string {
  const sub = t.sim.data.subAccounts()[0];
  const all = sub ? t.sim.data.transactions(sub.id) : [];
  const tx = all[matrixReceipts++ % Math.max(1, all.length)];
  if (!tx) throw new Error('the simulator has no transaction to test with');
  return tx.id;
}
let matrixTeams = 0;

/** A declined-transactions rule of `email`'s, straight into the store. */
let matrixRules = 0;
/** A rule of its own (identical rules are refused), past the per-person cap (a fixture). */
async function matrixAlertRule(t: TestApp, email: string) {
  matrixRules += 1;
  return (await t.stores.alerts()).createRule(
    {
      kind: 'declined',
      name: 'Matrix rule',
      subAccountId: `sa_matrix_${matrixRules}`,
      channels: { inbox: true, email: false },
    },
    email,
    new Date(t.clock.now()),
    undefined,
    Number.MAX_SAFE_INTEGER,
  );
}

/**
 * People: the harness keeps no people in a store, so every People endpoint answers as a path
 * no endpoint has, once the caller is allowed (features/people's own tests mount them).
 */
const unmounted = { status: 404, code: 'not_found' } as const;
const token = 'A'.repeat(43);
const peopleRequests: Record<string, Spec> = {
  'GET /api/people': () => ({ path: '/api/people', allowedAs: unmounted }),
  'POST /api/people/invitations': () => ({
    path: '/api/people/invitations',
    body: { email: 'invited@example.test', role: 'finance' },
    allowedAs: unmounted,
  }),
  'DELETE /api/people/invitations/:email': () => ({
    path: '/api/people/invitations/invited%40example.test',
    allowedAs: unmounted,
  }),
  'PUT /api/people/:email/role': () => ({
    path: '/api/people/someone%40example.test/role',
    body: { role: 'admin' },
    allowedAs: unmounted,
  }),
  'POST /api/people/:email/disable': () => ({
    path: '/api/people/someone%40example.test/disable',
    allowedAs: unmounted,
  }),
  'POST /api/people/:email/enable': () => ({
    path: '/api/people/someone%40example.test/enable',
    allowedAs: unmounted,
  }),
  'DELETE /api/people/:email': () => ({
    path: '/api/people/someone%40example.test',
    allowedAs: unmounted,
  }),
  'GET /api/people/:email/sessions': () => ({
    path: '/api/people/someone%40example.test/sessions',
    allowedAs: unmounted,
  }),
  'DELETE /api/people/:email/sessions': () => ({
    path: '/api/people/someone%40example.test/sessions',
    allowedAs: unmounted,
  }),
  'DELETE /api/people/:email/sessions/:id': () => ({
    path: '/api/people/someone%40example.test/sessions/abc',
    allowedAs: unmounted,
  }),
  'POST /api/invitations/lookup': () => ({
    path: '/api/invitations/lookup',
    body: { token },
    allowedAs: unmounted,
  }),
  'POST /api/invitations/authenticator': () => ({
    path: '/api/invitations/authenticator',
    body: { token },
    allowedAs: unmounted,
  }),
  'POST /api/invitations/accept': () => ({
    path: '/api/invitations/accept',
    body: { token, password: 'a long enough password' },
    allowedAs: unmounted,
  }),
};

export const routeRequests: Record<string, Spec> = {
  'GET /api/meta': () => ({ path: '/api/meta' }),
  'POST /api/session': (t, role) => ({
    path: '/api/session',
    body: {
      email: t.credentials[role].email,
      password: t.credentials[role].password,
      ...(role === 'admin' ? { totp: t.adminTotp() } : {}),
    },
  }),
  'GET /api/session': () => ({ path: '/api/session' }),
  'DELETE /api/session': () => ({ path: '/api/session' }),
  'POST /api/session/step-up-options': async (t, role, session) => {
    if (role === 'admin' && session) await enrolledPasskeyOf(t, session);
    return { path: '/api/session/step-up-options', body: {} };
  },
  'POST /api/session/step-up': async (t, role, session) => {
    if (role !== 'admin' || !session)
      return { path: '/api/session/step-up', body: { totp: '000000' } };
    const email = emailOf(t, role, session);
    await enrolledPasskeyOf(t, session);
    const options = await t.request
      .post('/api/session/step-up-options')
      .set(session.headers())
      .send({});
    if (options.status !== 200) return { path: '/api/session/step-up', body: { totp: '000000' } };
    const mine = new Set((await t.factors.get(email)).passkeys.map((p) => p.id));
    const passkey = t.authenticator.passkeys.find((p) => mine.has(p.id));
    return {
      path: '/api/session/step-up',
      body: { passkey: t.authenticator.get(options.body, t.config.publicOrigin, passkey?.id) },
    };
  },
  'GET /api/sso/start': () => ({ path: '/api/sso/start?returnTo=%2Fcards' }),
  'GET /api/sso/callback': () => ({ path: '/api/sso/callback?state=s&code=c' }),
  'GET /api/sso/step-up': () => ({ path: '/api/sso/step-up?returnTo=%2Fcards' }),
  'GET /api/second-factors': () => ({ path: '/api/second-factors' }),
  'PATCH /api/second-factors/totp': (_t, _role, session) => ({
    path: '/api/second-factors/totp',
    body: { enabled: true },
    // A single sign-on person has no authenticator app to turn on.
    ...(session?.via === 'sso' ? { allowedAs: { status: 409, code: 'no_totp' } } : {}),
  }),
  'POST /api/passkeys/registration-options': () => ({
    path: '/api/passkeys/registration-options',
    body: {},
  }),
  'POST /api/passkeys': async (t, role, session) => {
    const options =
      role === 'admin' && session
        ? await t.request.post('/api/passkeys/registration-options').set(session.headers()).send({})
        : undefined;
    const response = new SoftwareAuthenticator().create(
      options?.status === 200 ? options.body : { challenge: 'bm9uZQ', rp: { id: 'localhost' } },
      t.config.publicOrigin,
    );
    return { path: '/api/passkeys', body: { name: 'Matrix key', response } };
  },
  'PATCH /api/passkeys/:id': async (t, role, session) => ({
    path: `/api/passkeys/${await storedPasskeyOf(t, emailOf(t, role, session))}`,
    body: { name: 'Renamed by the matrix' },
  }),
  'DELETE /api/passkeys/:id': async (t, role, session) => ({
    path: `/api/passkeys/${await storedPasskeyOf(t, emailOf(t, role, session))}`,
  }),
  'GET /api/sub-accounts': () => ({ path: '/api/sub-accounts' }),
  // Sub-account names are unique: each allowed create needs a name of its own.
  'POST /api/sub-accounts': () => ({
    path: '/api/sub-accounts',
    body: { name: `Matrix team ${++matrixTeams}` },
  }),
  'GET /api/cards': () => ({ path: '/api/cards' }),
  'GET /api/cards/:id': (t) => ({ path: `/api/cards/${exampleIds(t).cardId}` }),
  'PATCH /api/cards/:id': (t) => {
    const { cardId } = exampleIds(t);
    return {
      path: `/api/cards/${cardId}`,
      body: { name: 'Matrix card', expected: { name: t.sim.data.card(cardId)?.name } },
    };
  },
  'GET /api/cards/:id/limit-impact': (t) => ({
    path: `/api/cards/${exampleIds(t).cardId}/limit-impact?maximumCents=10000`,
  }),
  'POST /api/cards/:id/reveal': (t) => ({
    path: `/api/cards/${exampleIds(t).cardId}/reveal`,
    body: { reason: 'authorization matrix test' },
  }),
  'GET /api/transactions/export.csv': (t) => ({
    path: `/api/transactions/export.csv?subAccountId=${exampleIds(t).subAccountId}`,
  }),
  // The person's own finished export (run through a session of their own): its receipt.
  'GET /api/transactions/export-receipts/:requestId': async (t, role, cell) => {
    const session = await t.signIn(role, { via: cell?.via ?? 'password' });
    const done = await t.request
      .get(`/api/transactions/export.csv?subAccountId=${exampleIds(t).subAccountId}`)
      .set(session.headers());
    if (done.status !== 200) throw new Error(`the recipe's export failed: ${done.status}`);
    return { path: `/api/transactions/export-receipts/${done.headers['x-request-id']}` };
  },
  'GET /api/transactions': (t) => ({
    path: `/api/transactions?subAccountId=${exampleIds(t).subAccountId}`,
  }),
  'GET /api/index/transactions': (t) => ({
    path: `/api/index/transactions?subAccountId=${exampleIds(t).subAccountId}&status=declined&status=failed`,
  }),
  'GET /api/index/transactions/export.csv': (t) => ({
    path: `/api/index/transactions/export.csv?subAccountId=${exampleIds(t).subAccountId}&categoryGroup=business`,
  }),
  'GET /api/index/categories': () => ({ path: '/api/index/categories' }),
  'GET /api/index/transactions/receipts.zip': (t) => ({
    path: `/api/index/transactions/receipts.zip?subAccountId=${exampleIds(t).subAccountId}&status=declined`,
  }),
  'GET /api/index/attention': (t) => ({
    path: `/api/index/attention?from=${t.clock.now() - 30 * 86_400_000}`,
  }),
  'GET /api/index/card-sub-accounts': () => ({ path: '/api/index/card-sub-accounts' }),
  'GET /api/index/cards': (t) => ({
    path: `/api/index/cards?subAccountId=${exampleIds(t).subAccountId}&sort=name`,
  }),
  'GET /api/index/card-money': (t) => ({
    path: `/api/index/card-money?cardId=${exampleIds(t).cardId}`,
  }),
  'GET /api/index/cards/:id': (t) => ({ path: `/api/index/cards/${exampleIds(t).cardId}` }),
  'GET /api/transactions/:id': (t) => ({
    path: `/api/transactions/${exampleIds(t).transactionId}`,
  }),
  'GET /api/overview': (t) => ({
    path: `/api/overview?subAccountId=${exampleIds(t).subAccountId}&from=2026-01-01&to=2026-01-31&tz=UTC`,
  }),
  'GET /api/transactions/:id/annotation': (t) => ({
    path: `/api/transactions/${exampleIds(t).transactionId}/annotation`,
  }),
  // The notes' version as they are now: every allowed change saves.
  'PATCH /api/transactions/:id/annotation': async (t) => {
    const { transactionId } = exampleIds(t);
    const { version } = await (await t.stores.annotations()).get(transactionId);
    return {
      path: `/api/transactions/${transactionId}/annotation`,
      body: { version, memo: `Matrix memo ${version}` },
    };
  },
  'POST /api/transactions/annotations': (t) => {
    const { subAccountId, transactionId } = exampleIds(t);
    return {
      path: '/api/transactions/annotations',
      body: { items: [{ subAccountId, id: transactionId }], addTags: ['matrix'] },
    };
  },
  'GET /api/transactions/:id/receipts': (t) => ({
    path: `/api/transactions/${exampleIds(t).transactionId}/receipts`,
  }),
  // Each allowed upload on a transaction of its own: a transaction has at most a few.
  'POST /api/transactions/:id/receipts': (t) => ({
    path: `/api/transactions/${receiptTransaction(t)}/receipts`,
    body: pdfReceipt(),
  }),
  'GET /api/transactions/:id/receipts/:receiptId': async (t) => ({ path: await storedReceipt(t) }),
  'DELETE /api/transactions/:id/receipts/:receiptId': async (t) => ({
    path: await storedReceipt(t),
  }),
  'GET /api/merchant-rules': () => ({ path: '/api/merchant-rules' }),
  // Each merchant has one rule: each allowed create names a merchant of its own.
  'POST /api/merchant-rules': async (t) => {
    const category = await (await t.stores.annotations()).createCategory(
      { code: `MXR-${++matrixCategories}`, name: 'Matrix rules' },
      new Date(t.clock.now()),
    );
    return {
      path: '/api/merchant-rules',
      body: { merchant: `Matrix merchant ${matrixCategories}`, categoryId: category.id },
    };
  },
  'DELETE /api/merchant-rules/:id': async (t) => {
    const notes = await t.stores.annotations();
    const at = new Date(t.clock.now());
    const category = await notes.createCategory(
      { code: `MXD-${++matrixCategories}`, name: 'Matrix rules' },
      at,
    );
    const rule = await notes.createRule(
      { merchant: `Matrix removal ${matrixCategories}`, categoryId: category.id },
      'matrix@example.test',
      at,
    );
    return { path: `/api/merchant-rules/${rule.id}` };
  },
  'GET /api/accounting-categories': () => ({ path: '/api/accounting-categories' }),
  // Codes are unique: each allowed create needs a code of its own.
  'POST /api/accounting-categories': () => ({
    path: '/api/accounting-categories',
    body: { code: `MX-${++matrixCategories}`, name: 'Matrix category' },
  }),
  'POST /api/accounting-categories/import': () => ({
    path: '/api/accounting-categories/import',
    body: `Code,Name\nMXI-${++matrixCategories},Imported by the matrix\n`,
  }),
  'PATCH /api/accounting-categories/:id': async (t) => {
    const created = await (await t.stores.annotations()).createCategory(
      { code: `MXP-${++matrixCategories}`, name: 'Matrix category' },
      new Date(t.clock.now()),
    );
    return { path: `/api/accounting-categories/${created.id}`, body: { name: 'Renamed' } };
  },
  'GET /api/alerts/rules': () => ({ path: '/api/alerts/rules' }),
  'POST /api/alerts/rules': () => ({
    path: '/api/alerts/rules',
    body: { kind: 'declined', name: 'Matrix declines', channels: { inbox: true, email: false } },
  }),
  // The caller's own rule, put straight into the store, replaced or removed at its version.
  'PUT /api/alerts/rules/:id': async (t, role, session) => {
    const rule = await matrixAlertRule(t, emailOf(t, role, session));
    return {
      path: `/api/alerts/rules/${rule.id}`,
      body: {
        kind: 'amount_above',
        name: 'Matrix large spend',
        amountCents: 50_000,
        channels: { inbox: true, email: false },
        version: rule.version,
      },
    };
  },
  'DELETE /api/alerts/rules/:id': async (t, role, session) => {
    const rule = await matrixAlertRule(t, emailOf(t, role, session));
    return { path: `/api/alerts/rules/${rule.id}?version=${rule.version}` };
  },
  'GET /api/alerts/inbox': () => ({ path: '/api/alerts/inbox?unread=1&limit=10' }),
  'GET /api/alerts/inbox/unread-count': () => ({ path: '/api/alerts/inbox/unread-count' }),
  'POST /api/alerts/inbox/read': () => ({ path: '/api/alerts/inbox/read', body: { all: true } }),
  'GET /api/alerts/webhooks': () => ({ path: '/api/alerts/webhooks' }),
  'POST /api/alerts/webhooks': () => ({
    path: '/api/alerts/webhooks',
    body: { name: 'Matrix hook', url: 'https://hooks.example.test/matrix' },
  }),
  // A target no rule sends to, put straight into the store.
  'DELETE /api/alerts/webhooks/:id': async (t) => {
    const target = await (await t.stores.alerts()).webhookTargets.create(
      { name: 'Matrix hook', url: 'https://hooks.example.test/matrix' },
      t.credentials.admin.email,
      new Date(t.clock.now()),
    );
    return { path: `/api/alerts/webhooks/${target.id}` };
  },
  ...peopleRequests,
  'GET /api/audit': () => ({ path: '/api/audit' }),
  'GET /api/audit/export.csv': () => ({ path: '/api/audit/export.csv?tz=Europe/Paris' }),
};

export const ruleKey = (rule: Endpoint) => routeOf(rule);

/** Sends `method path` with headers and an optional JSON body through the harness. */
export function send(
  t: TestApp,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const m = method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  const req = t.request[m](path).set(headers);
  if (typeof body === 'string') return req.set('content-type', 'text/csv').send(body);
  if (Buffer.isBuffer(body)) return req.set('content-type', 'application/octet-stream').send(body);
  return body === undefined ? req : req.send(body as object);
}
