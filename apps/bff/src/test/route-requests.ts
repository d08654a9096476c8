import type { Role } from '@card-console/shared/api/meta';
import type { Endpoint, EndpointName } from '../core/endpoint';
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

/** What an allowed finance caller gets from the second-factor routes' own rules. */
const stepUpFirst = { status: 401, code: 'step_up_required' };
const badPasskey = { status: 401, code: 'invalid_passkey' };
const noSuchPasskey = { status: 404, code: 'not_found' };
const noTotpSetup = { status: 409, code: 'no_totp_setup' };

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
    itemId: 'inbox-item-example',
  };
}

export function resolveExample(t: TestApp, rule: Endpoint): string {
  const ids = exampleIds(t);
  return rule.example.replace(/\{(\w+)\}/g, (_, name: keyof typeof ids) =>
    encodeURIComponent(ids[name]),
  );
}

let matrixCategories = 0;
let matrixReceipts = 0;

/** The path of a receipt put straight into the store, on a transaction of its own. */
async function storedReceipt(t: TestApp): Promise<string> {
  const id = receiptTransaction(t);
  const { receipt } = await (await t.stores.notes()).addReceipt(
    id,
    { fileName: 'matrix.pdf', mediaType: 'application/pdf', content: pdfReceipt() },
    1_000,
    'matrix@example.test',
    new Date(t.clock.now()),
  );
  return `/api/transactions/${id}/receipts/${receipt.id}`;
}

/** An item in `email`'s receipt inbox, put straight into the store (never read). */
async function inboxItemOf(t: TestApp, email: string): Promise<string> {
  const item = await (await t.stores.receiptInbox()).receive(
    email,
    { fileName: 'matrix.pdf', mediaType: 'application/pdf', content: pdfReceipt() },
    'upload',
    new Date(t.clock.now()),
  );
  return item.id;
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

let matrixMerchants = 0;
/** Each webhook target a name of its own (one name, one target). */
let matrixHooks = 0;
/** A merchant an admin has named (a name of its own, so each cell finds one to change). */
async function matrixMerchant(t: TestApp): Promise<string> {
  matrixMerchants += 1;
  const name = `Matrix Merchant ${matrixMerchants}`;
  await (await t.stores.merchantNames()).name(
    `matrix group ${matrixMerchants}`,
    true,
    { name, nameKey: name.toLowerCase() },
    'matrix@example.test',
    new Date(t.clock.now()),
  );
  return name;
}

/**
 * People: the harness keeps no people in a store, so every People endpoint answers as a path
 * no endpoint has, once the caller is allowed (features/people's own tests mount them).
 */
const unmounted = { status: 404, code: 'not_found' } as const;
const token = 'A'.repeat(43);
const peopleRequests: {
  [N in Extract<EndpointName, `people.${string}` | `invitations.${string}`>]: Spec;
} = {
  'people.list': () => ({ path: '/api/people', allowedAs: unmounted }),
  'people.invite': () => ({
    path: '/api/people/invitations',
    body: { email: 'invited@example.test', role: 'finance' },
    allowedAs: unmounted,
  }),
  'people.cancelInvitation': () => ({
    path: '/api/people/invitations/invited%40example.test',
    allowedAs: unmounted,
  }),
  'people.setRole': () => ({
    path: '/api/people/someone%40example.test/role',
    body: { role: 'admin' },
    allowedAs: unmounted,
  }),
  'people.disable': () => ({
    path: '/api/people/someone%40example.test/disable',
    allowedAs: unmounted,
  }),
  'people.enable': () => ({
    path: '/api/people/someone%40example.test/enable',
    allowedAs: unmounted,
  }),
  'people.remove': () => ({
    path: '/api/people/someone%40example.test',
    allowedAs: unmounted,
  }),
  'people.sessions': () => ({
    path: '/api/people/someone%40example.test/sessions',
    allowedAs: unmounted,
  }),
  'people.endSessions': () => ({
    path: '/api/people/someone%40example.test/sessions',
    allowedAs: unmounted,
  }),
  'people.endSession': () => ({
    path: '/api/people/someone%40example.test/sessions/abc',
    allowedAs: unmounted,
  }),
  'invitations.lookup': () => ({
    path: '/api/invitations/lookup',
    body: { token },
    allowedAs: unmounted,
  }),
  'invitations.authenticator': () => ({
    path: '/api/invitations/authenticator',
    body: { token },
    allowedAs: unmounted,
  }),
  'invitations.accept': () => ({
    path: '/api/invitations/accept',
    body: { token, password: 'a long enough password' },
    allowedAs: unmounted,
  }),
};

/**
 * One entry per endpoint of the contract, keyed by its name: an endpoint without one is a type
 * error here (and the coverage test fails), so a new endpoint cannot skip the generated tests.
 */
export const routeRequests: Record<EndpointName, Spec> = {
  'meta.get': () => ({ path: '/api/meta' }),
  'meta.demoAdminCode': () => ({ path: '/api/meta/demo-admin-code' }),
  'session.signIn': (t, role) => ({
    path: '/api/session',
    body: {
      email: t.credentials[role].email,
      password: t.credentials[role].password,
      ...(role === 'admin' ? { totp: t.adminTotp() } : {}),
    },
  }),
  'session.get': () => ({ path: '/api/session' }),
  'session.signOut': () => ({ path: '/api/session' }),
  'session.stepUpOptions': async (t, role, session) => {
    if (role === 'admin' && session) await enrolledPasskeyOf(t, session);
    // The matrix's finance person has no passkey (one would ask for it at their sign-ins).
    return {
      path: '/api/session/step-up-options',
      body: {},
      ...(role === 'finance' ? { allowedAs: { status: 409, code: 'no_passkeys' } } : {}),
    };
  },
  'session.stepUp': async (t, role, session) => {
    if (role !== 'admin' || !session)
      return {
        path: '/api/session/step-up',
        body: { totp: '000000' },
        // Finance has no second factor to prove here: the code is checked and refused.
        allowedAs: { status: 401, code: 'invalid_totp' },
      };
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
  'sso.start': () => ({ path: '/api/sso/start?returnTo=%2Fcards' }),
  'sso.callback': () => ({ path: '/api/sso/callback?state=s&code=c' }),
  'sso.stepUp': () => ({ path: '/api/sso/step-up?returnTo=%2Fcards' }),
  'security.secondFactors': () => ({ path: '/api/second-factors' }),
  'security.setTotp': (_t, role, session) => ({
    path: '/api/second-factors/totp',
    body: { enabled: true },
    // A single sign-on person has no authenticator app to turn on, nor has the matrix's finance
    // person (whose single sign-on session has yet to confirm at the provider).
    ...(role === 'finance' && session?.via === 'sso'
      ? { allowedAs: stepUpFirst }
      : session?.via === 'sso' || role === 'finance'
        ? { allowedAs: { status: 409, code: 'no_totp' } }
        : {}),
  }),
  'security.totpSetup': (_t, role, session) => ({
    path: '/api/second-factors/totp/setup',
    body: {},
    ...(role === 'finance' && session?.via === 'sso' ? { allowedAs: stepUpFirst } : {}),
  }),
  // No setup was started for the code: refused as such once authorized, nothing stored.
  'security.confirmTotp': (_t, role, session) => ({
    path: '/api/second-factors/totp',
    body: { code: '123456' },
    allowedAs: role === 'finance' && session?.via === 'sso' ? stepUpFirst : noTotpSetup,
  }),
  'security.registrationOptions': (_t, role, session) => ({
    path: '/api/passkeys/registration-options',
    body: {},
    ...(role === 'finance' && session?.via === 'sso' ? { allowedAs: stepUpFirst } : {}),
  }),
  'security.addPasskey': async (t, role, session) => {
    const options =
      role === 'admin' && session
        ? await t.request.post('/api/passkeys/registration-options').set(session.headers()).send({})
        : undefined;
    const response = new SoftwareAuthenticator().create(
      options?.status === 200 ? options.body : { challenge: 'bm9uZQ', rp: { id: 'localhost' } },
      t.config.publicOrigin,
    );
    // Finance's passkey is made for options never issued, so none is enrolled: a passkey would
    // ask for itself at the matrix's later finance sign-ins.
    const finance =
      role === 'finance' ? { allowedAs: session?.via === 'sso' ? stepUpFirst : badPasskey } : {};
    return { path: '/api/passkeys', body: { name: 'Matrix key', response }, ...finance };
  },
  // Finance's calls name a passkey nobody has (see above): refused as such once authorized.
  'security.renamePasskey': async (t, role, session) =>
    role === 'finance'
      ? {
          path: `/api/passkeys/${exampleIds(t).passkeyId}`,
          body: { name: 'Renamed' },
          allowedAs: noSuchPasskey,
        }
      : {
          path: `/api/passkeys/${await storedPasskeyOf(t, emailOf(t, role, session))}`,
          body: { name: 'Renamed by the matrix' },
        },
  'security.removePasskey': async (t, role, session) =>
    role === 'finance'
      ? {
          path: `/api/passkeys/${exampleIds(t).passkeyId}`,
          allowedAs: session?.via === 'sso' ? stepUpFirst : noSuchPasskey,
        }
      : { path: `/api/passkeys/${await storedPasskeyOf(t, emailOf(t, role, session))}` },
  'subAccounts.list': () => ({ path: '/api/sub-accounts' }),
  // Sub-account names are unique: each allowed create needs a name of its own.
  'subAccounts.create': () => ({
    path: '/api/sub-accounts',
    body: { name: `Matrix team ${++matrixTeams}` },
  }),
  'cards.list': () => ({ path: '/api/cards' }),
  'cards.get': (t) => ({ path: `/api/cards/${exampleIds(t).cardId}` }),
  'cards.owners': () => ({ path: '/api/card-owners' }),
  'cards.setOwner': (t) => ({
    path: `/api/cards/${exampleIds(t).cardId}/owner`,
    body: { owner: { name: 'Matrix Owner' }, team: 'Matrix Team' },
  }),
  'cards.update': (t) => {
    const { cardId } = exampleIds(t);
    return {
      path: `/api/cards/${cardId}`,
      body: { name: 'Matrix card', expected: { name: t.sim.data.card(cardId)?.name } },
    };
  },
  'cards.limitImpact': (t) => ({
    path: `/api/cards/${exampleIds(t).cardId}/limit-impact?maximumCents=10000`,
  }),
  'cards.reveal': (t) => ({
    path: `/api/cards/${exampleIds(t).cardId}/reveal`,
    body: { reason: 'authorization matrix test' },
  }),
  'transactions.exportCsv': (t) => ({
    path: `/api/transactions/export.csv?subAccountId=${exampleIds(t).subAccountId}`,
  }),
  // The person's own finished export (run through a session of their own): its receipt.
  'transactions.exportReceipt': async (t, role, cell) => {
    const session = await t.signIn(role, { via: cell?.via ?? 'password' });
    const done = await t.request
      .get(`/api/transactions/export.csv?subAccountId=${exampleIds(t).subAccountId}`)
      .set(session.headers());
    if (done.status !== 200) throw new Error(`the recipe's export failed: ${done.status}`);
    return { path: `/api/transactions/export-receipts/${done.headers['x-request-id']}` };
  },
  'transactions.list': (t) => ({
    path: `/api/transactions?subAccountId=${exampleIds(t).subAccountId}`,
  }),
  'index.transactions': (t) => ({
    path: `/api/index/transactions?subAccountId=${exampleIds(t).subAccountId}&status=declined&status=failed`,
  }),
  'index.totals': (t) => ({
    path: `/api/index/transactions/totals?subAccountId=${exampleIds(t).subAccountId}&by=card`,
  }),
  'index.queue': (t) => ({
    path: `/api/index/transactions/queue?subAccountId=${exampleIds(t).subAccountId}&transactionId=${exampleIds(t).transactionId}`,
  }),
  'index.queueNext': (t) => ({
    path: `/api/index/transactions/queue/next?subAccountId=${exampleIds(t).subAccountId}&transactionId=${exampleIds(t).transactionId}`,
  }),
  'index.exportCsv': (t) => ({
    path: `/api/index/transactions/export.csv?subAccountId=${exampleIds(t).subAccountId}&categoryGroup=business`,
  }),
  'index.categories': () => ({ path: '/api/index/categories' }),
  'index.merchant': () => ({
    path: `/api/index/merchant?descriptor=${encodeURIComponent('SQ *PRAIRIE FUEL AUSTIN TX')}`,
  }),
  // A merchant named in the store beforehand: what an admin's change finds (no sync needed).
  'index.nameMerchant': async (t) => ({
    path: '/api/index/merchants/name',
    body: { merchant: await matrixMerchant(t), name: 'Matrix Merchant Renamed' },
  }),
  'index.unnameMerchant': async (t) => ({
    path: `/api/index/merchants/name?merchant=${encodeURIComponent(await matrixMerchant(t))}`,
  }),
  'index.receiptsZip': (t) => ({
    path: `/api/index/transactions/receipts.zip?subAccountId=${exampleIds(t).subAccountId}&status=declined`,
  }),
  'index.attention': (t) => ({
    path: `/api/index/attention?from=${t.clock.now() - 30 * 86_400_000}`,
  }),
  'index.cardSubAccounts': () => ({ path: '/api/index/card-sub-accounts' }),
  'index.cards': (t) => ({
    path: `/api/index/cards?subAccountId=${exampleIds(t).subAccountId}&sort=name`,
  }),
  'index.cardMoney': (t) => ({
    path: `/api/index/card-money?cardId=${exampleIds(t).cardId}`,
  }),
  'index.card': (t) => ({ path: `/api/index/cards/${exampleIds(t).cardId}` }),
  'transactions.get': (t) => ({
    path: `/api/transactions/${exampleIds(t).transactionId}`,
  }),
  'overview.get': (t) => ({
    path: `/api/overview?subAccountId=${exampleIds(t).subAccountId}&from=2026-01-01&to=2026-01-31&tz=UTC`,
  }),
  'notes.get': (t) => ({
    path: `/api/transactions/${exampleIds(t).transactionId}/notes`,
  }),
  // The notes' version as they are now: every allowed change saves.
  'notes.update': async (t) => {
    const { transactionId } = exampleIds(t);
    const { version } = await (await t.stores.notes()).get(transactionId);
    return {
      path: `/api/transactions/${transactionId}/notes`,
      body: { version, memo: `Matrix memo ${version}` },
    };
  },
  'notes.updateMany': (t) => {
    const { subAccountId, transactionId } = exampleIds(t);
    return {
      path: '/api/transactions/notes',
      body: { items: [{ subAccountId, id: transactionId }], addTags: ['matrix'] },
    };
  },
  'notes.updateMatching': (t) => ({
    path: '/api/transactions/notes/matching',
    body: {
      filter: { subAccountId: exampleIds(t).subAccountId },
      addTags: ['matrix'],
      preview: true,
    },
  }),
  'receipts.list': (t) => ({
    path: `/api/transactions/${exampleIds(t).transactionId}/receipts`,
  }),
  // Each allowed upload on a transaction of its own: a transaction has at most a few.
  'receipts.upload': (t) => ({
    path: `/api/transactions/${receiptTransaction(t)}/receipts`,
    body: pdfReceipt(),
  }),
  'receipts.download': async (t) => ({ path: await storedReceipt(t) }),
  'receipts.remove': async (t) => ({
    path: await storedReceipt(t),
  }),
  'merchantRules.list': () => ({ path: '/api/merchant-rules' }),
  // Each merchant has one rule: each allowed create names a merchant of its own.
  'merchantRules.create': async (t) => {
    const category = await (await t.stores.notes()).createCategory(
      { code: `MXR-${++matrixCategories}`, name: 'Matrix rules' },
      new Date(t.clock.now()),
    );
    return {
      path: '/api/merchant-rules',
      body: { merchant: `Matrix merchant ${matrixCategories}`, categoryId: category.id },
    };
  },
  'merchantRules.remove': async (t) => {
    const notes = await t.stores.notes();
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
  'accountingCategories.list': () => ({ path: '/api/accounting-categories' }),
  // Codes are unique: each allowed create needs a code of its own.
  'accountingCategories.create': () => ({
    path: '/api/accounting-categories',
    body: { code: `MX-${++matrixCategories}`, name: 'Matrix category' },
  }),
  'accountingCategories.import': () => ({
    path: '/api/accounting-categories/import',
    body: `Code,Name\nMXI-${++matrixCategories},Imported by the matrix\n`,
  }),
  'accountingCategories.update': async (t) => {
    const created = await (await t.stores.notes()).createCategory(
      { code: `MXP-${++matrixCategories}`, name: 'Matrix category' },
      new Date(t.clock.now()),
    );
    return { path: `/api/accounting-categories/${created.id}`, body: { name: 'Renamed' } };
  },
  'inbox.list': () => ({ path: '/api/receipt-inbox' }),
  'inbox.upload': () => ({ path: '/api/receipt-inbox', body: pdfReceipt() }),
  'inbox.file': async (t, role, session) => ({
    path: `/api/receipt-inbox/${await inboxItemOf(t, emailOf(t, role, session))}/file`,
  }),
  // The caller's own item, onto a transaction of its own (a transaction has at most a few).
  'inbox.attach': async (t, role, session) => ({
    path: `/api/receipt-inbox/${await inboxItemOf(t, emailOf(t, role, session))}/attach`,
    body: { subAccountId: exampleIds(t).subAccountId, transactionId: receiptTransaction(t) },
  }),
  'inbox.discard': async (t, role, session) => ({
    path: `/api/receipt-inbox/${await inboxItemOf(t, emailOf(t, role, session))}`,
  }),
  'inbox.address': () => ({ path: '/api/receipt-inbox/address' }),
  // The test app receives no mail: the rotation is refused as such once authorized.
  'inbox.rotateAddress': () => ({
    path: '/api/receipt-inbox/address',
    allowedAs: { status: 409, code: 'mail_not_set_up' },
  }),
  'closePolicy.get': () => ({ path: '/api/close-policy' }),
  // The default policy again: other tests' counts are left as they were.
  'closePolicy.update': () => ({
    path: '/api/close-policy',
    // The default policy, on its version: an allowed save of it changes nothing.
    body: { receiptFromCents: 7_500, memoCategoryIds: [], version: 0 },
  }),
  'securityPolicy.get': () => ({ path: '/api/security-policy' }),
  // Off, as it is by default: other tests' sessions are left as they were.
  'securityPolicy.update': () => ({
    path: '/api/security-policy',
    body: { requireSecondFactor: false },
  }),
  'alerts.rules': () => ({ path: '/api/alerts/rules' }),
  'alerts.createRule': () => ({
    path: '/api/alerts/rules',
    body: { kind: 'declined', name: 'Matrix declines', channels: { inbox: true, email: false } },
  }),
  // The caller's own rule, put straight into the store, replaced or removed at its version.
  'alerts.updateRule': async (t, role, session) => {
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
  'alerts.deleteRule': async (t, role, session) => {
    const rule = await matrixAlertRule(t, emailOf(t, role, session));
    return { path: `/api/alerts/rules/${rule.id}?version=${rule.version}` };
  },
  'alerts.testRule': async (t, role, session) => {
    const rule = await matrixAlertRule(t, emailOf(t, role, session));
    return { path: `/api/alerts/rules/${rule.id}/test` };
  },
  'alerts.inbox': () => ({ path: '/api/alerts/inbox?unread=1&limit=10' }),
  'alerts.unreadCount': () => ({ path: '/api/alerts/inbox/unread-count' }),
  'alerts.markRead': () => ({ path: '/api/alerts/inbox/read', body: { all: true } }),
  'alerts.webhooks': () => ({ path: '/api/alerts/webhooks' }),
  'alerts.createWebhook': () => ({
    path: '/api/alerts/webhooks',
    body: { name: `Matrix hook ${++matrixHooks}`, url: 'https://hooks.example.test/matrix' },
  }),
  // A target no rule sends to, put straight into the store.
  'alerts.deleteWebhook': async (t) => {
    const target = await (await t.stores.alerts()).webhookTargets.create(
      { name: `Matrix hook ${++matrixHooks}`, url: 'https://hooks.example.test/matrix' },
      t.credentials.admin.email,
      new Date(t.clock.now()),
    );
    return { path: `/api/alerts/webhooks/${target.id}` };
  },
  ...peopleRequests,
  'audit.list': () => ({ path: '/api/audit' }),
  'audit.exportCsv': () => ({ path: '/api/audit/export.csv?tz=Europe/Paris' }),
};

export const ruleKey = (rule: Endpoint) => rule.name;

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
