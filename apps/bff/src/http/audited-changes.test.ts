// A change to our own store and its audit record commit together or not at all. With the trail
// refusing every append, each kind of change answers 503 `audit_unavailable` (never a 500), and
// reading the store back over HTTP shows it as it was: nothing saved without its record.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { merchantOf } from '@card-console/shared/merchants';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../platform/store-unavailable';
import { FailingAuditStore } from '../test/failing-audit';
import { startTestApp, type TestApp, type TestSession } from '../test/harness';
import { pngWithGps } from '../test/receipt-files';
import { settledIndexList } from '../test/settled-index';

let t: TestApp;
let trail: FailingAuditStore;
let admin: TestSession;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({
    sim: { transactions: 60 },
    env: { rateLimits: { uploadsPerMinute: 1_000 } },
    audit: (jsonl) => {
      trail = new FailingAuditStore(jsonl);
      return trail;
    },
  });
  [admin, finance] = [await t.signIn('admin'), await t.signIn('finance')];
}, 60_000);
afterAll(async () => t?.close());

let used = 0;
function freshTransactionId(): string {
  const sub = t.sim.data.subAccounts()[0];
  const tx = sub ? t.sim.data.transactions(sub.id)[used++] : undefined;
  if (!tx) throw new Error('the simulator has no transaction left to test with');
  return tx.id;
}

const ok = async (res: supertest.Test | Promise<supertest.Response>, status = 200) => {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
};
const get = (path: string, session = admin) => ok(t.request.get(path).set(session.headers()));
const post = (path: string, body: object, session = admin) =>
  t.request.post(path).set(session.headers()).send(body);
const notesPath = (id: string) => `/api/transactions/${encodeURIComponent(id)}/notes`;
const receiptsPath = (id: string) => `/api/transactions/${encodeURIComponent(id)}/receipts`;
const upload = (id: string) =>
  t.request
    .post(receiptsPath(id))
    .set(finance.headers())
    .set('content-type', 'application/octet-stream')
    .set('x-file-name', 'dinner.png')
    .send(pngWithGps());

const totp = (enabled: boolean) =>
  t.request.patch('/api/second-factors/totp').set(admin.headers()).send({ enabled });

let codes = 0;
const newCategory = async () =>
  ok(post('/api/accounting-categories', { code: `AC-${++codes}`, name: 'Travel' }), 201);
/** A rule unlike any other (identical rules are refused). */
let amounts = 0;
const declined = (name: string) => ({
  kind: 'amount_above',
  amountCents: 10_000 + ++amounts,
  name,
  channels: { inbox: true, email: false },
});

/** A merchant text of the index (synced first), a merchant of its own, one per call. */
let descriptors = 0;
/** Each webhook target a name of its own (one name, one target). */
let hooks = 0;
async function syncedDescriptor(): Promise<string> {
  const sub = t.sim.data.subAccounts()[0];
  await settledIndexList(t, admin, `?subAccountId=${sub?.id}`);
  const texts = [
    ...new Set(
      (sub ? t.sim.data.transactions(sub.id) : []).flatMap((x) =>
        x.merchantData ? [x.merchantData.description] : [],
      ),
    ),
  ];
  const text = texts[descriptors++];
  if (!text) throw new Error('the simulator has no merchant text left to test with');
  return text;
}

/**
 * One kind of change: what it needs first (made with the trail working), the change itself, and
 * how the store it changes reads back.
 */
interface Change {
  name: string;
  arrange: () => Promise<Record<string, string>>;
  act: (given: Record<string, string>) => supertest.Test;
  read: (given: Record<string, string>) => Promise<unknown>;
}

const changes: Change[] = [
  {
    name: 'a transaction’s notes',
    arrange: async () => ({ id: freshTransactionId() }),
    act: ({ id = '' }) =>
      t.request.patch(notesPath(id)).set(finance.headers()).send({ version: 0, memo: 'Dinner' }),
    read: ({ id = '' }) => get(notesPath(id)),
  },
  {
    name: 'the notes of a selection of transactions',
    arrange: async () => {
      // The last rows of the list: freshTransactionId takes the first sub account's from its start.
      const rows = (await settledIndexList(t, finance, '?limit=200')).items.filter(
        (x) => x.notes === undefined,
      );
      const [a, b] = rows.slice(-2);
      if (!a || !b) throw new Error('the index holds too few rows');
      return { a: a.id, aSub: a.subAccountId, b: b.id, bSub: b.subAccountId };
    },
    act: (x) =>
      post(
        '/api/transactions/notes',
        {
          items: [
            { id: x.a, subAccountId: x.aSub },
            { id: x.b, subAccountId: x.bSub },
          ],
          addTags: ['selection'],
        },
        finance,
      ),
    read: async (x) => [await get(notesPath(x.a ?? '')), await get(notesPath(x.b ?? ''))],
  },
  {
    name: 'a receipt added',
    arrange: async () => ({ id: freshTransactionId() }),
    act: ({ id = '' }) => upload(id),
    read: async ({ id = '' }) => [await get(receiptsPath(id)), await get(notesPath(id))],
  },
  {
    name: 'a receipt removed',
    arrange: async () => {
      const id = freshTransactionId();
      const receipt = await ok(upload(id), 201);
      return { id, receipt: receipt.id };
    },
    act: ({ id = '', receipt = '' }) =>
      t.request.delete(`${receiptsPath(id)}/${receipt}`).set(finance.headers()),
    read: async ({ id = '' }) => [await get(receiptsPath(id)), await get(notesPath(id))],
  },
  {
    name: 'an accounting category added',
    arrange: async () => ({}),
    act: () => post('/api/accounting-categories', { code: 'NEW-1', name: 'Meals' }),
    read: () => get('/api/accounting-categories'),
  },
  {
    name: 'an accounting category changed',
    arrange: async () => ({ id: (await newCategory()).id }),
    act: ({ id = '' }) =>
      t.request
        .patch(`/api/accounting-categories/${id}`)
        .set(admin.headers())
        .send({ name: 'Flights', archived: true }),
    read: () => get('/api/accounting-categories'),
  },
  {
    name: 'a chart of accounts imported',
    arrange: async () => ({ code: (await newCategory()).code }),
    act: ({ code = '' }) =>
      t.request
        .post('/api/accounting-categories/import')
        .set(admin.headers())
        .set('content-type', 'text/csv')
        .send(`code,name\n${code},Renamed\nIMP-1,Imported\n`),
    read: () => get('/api/accounting-categories'),
  },
  {
    name: 'a merchant rule added',
    arrange: async () => ({ category: (await newCategory()).id }),
    act: ({ category = '' }) =>
      post('/api/merchant-rules', { merchant: 'Blue Bottle', categoryId: category }),
    read: () => get('/api/merchant-rules'),
  },
  {
    name: 'a merchant rule removed',
    arrange: async () => {
      const category = (await newCategory()).id;
      const rule = await ok(
        post('/api/merchant-rules', { merchant: `Shop ${codes}`, categoryId: category }),
        201,
      );
      return { id: rule.id };
    },
    act: ({ id = '' }) => t.request.delete(`/api/merchant-rules/${id}`).set(admin.headers()),
    read: () => get('/api/merchant-rules'),
  },
  {
    name: 'the close policy set',
    arrange: async () => ({ category: (await newCategory()).id }),
    act: ({ category = '' }) =>
      t.request
        .put('/api/close-policy')
        .set(admin.headers())
        .send({ receiptFromCents: 12_300, memoCategoryIds: [category], version: 0 }),
    read: () => get('/api/close-policy'),
  },
  {
    name: 'a receipt dropped into the inbox',
    arrange: async () => ({}),
    act: () =>
      t.request
        .post('/api/receipt-inbox')
        .set(finance.headers())
        .set('content-type', 'application/octet-stream')
        .set('x-file-name', 'lunch.png')
        .send(pngWithGps()),
    read: () => get('/api/receipt-inbox', finance),
  },
  {
    name: 'an inbox receipt attached to a transaction',
    arrange: async () => {
      const item = await (await t.stores.receiptInbox()).receive(
        t.credentials.finance.email,
        { fileName: 'taxi.png', mediaType: 'image/png', content: pngWithGps() },
        'upload',
        new Date(t.clock.now()),
      );
      return { id: item.id, transactionId: freshTransactionId() };
    },
    act: ({ id = '', transactionId = '' }) =>
      post(
        `/api/receipt-inbox/${id}/attach`,
        { subAccountId: t.sim.data.subAccounts()[0]?.id, transactionId },
        finance,
      ),
    read: async ({ transactionId = '' }) => [
      await get('/api/receipt-inbox', finance),
      await get(receiptsPath(transactionId), finance),
    ],
  },
  {
    name: 'an inbox receipt discarded',
    arrange: async () => {
      const item = await (await t.stores.receiptInbox()).receive(
        t.credentials.finance.email,
        { fileName: 'fuel.png', mediaType: 'image/png', content: pngWithGps() },
        'upload',
        new Date(t.clock.now()),
      );
      return { id: item.id };
    },
    act: ({ id = '' }) => t.request.delete(`/api/receipt-inbox/${id}`).set(finance.headers()),
    read: () => get('/api/receipt-inbox', finance),
  },
  {
    name: 'an alert rule added',
    arrange: async () => ({}),
    act: () => post('/api/alerts/rules', declined('Declines'), finance),
    read: () => get('/api/alerts/rules', finance),
  },
  {
    name: 'an alert rule changed',
    arrange: async () => {
      const rule = await ok(post('/api/alerts/rules', declined('Before'), finance), 201);
      return { id: rule.id, version: String(rule.version) };
    },
    act: ({ id = '', version = '' }) =>
      t.request
        .put(`/api/alerts/rules/${id}`)
        .set(finance.headers())
        .send({ ...declined('After'), version: Number(version) }),
    read: () => get('/api/alerts/rules', finance),
  },
  {
    name: 'an alert rule removed',
    arrange: async () => {
      const rule = await ok(post('/api/alerts/rules', declined('Doomed'), finance), 201);
      return { id: rule.id, version: String(rule.version) };
    },
    act: ({ id = '', version = '' }) =>
      t.request.delete(`/api/alerts/rules/${id}?version=${version}`).set(finance.headers()),
    read: () => get('/api/alerts/rules', finance),
  },
  {
    name: 'a test alert sent',
    arrange: async () => {
      const rule = await ok(post('/api/alerts/rules', declined('Tested'), finance), 201);
      return { id: rule.id };
    },
    act: ({ id = '' }) => t.request.post(`/api/alerts/rules/${id}/test`).set(finance.headers()),
    read: () => get('/api/alerts/inbox', finance),
  },
  {
    name: 'a merchant named',
    arrange: async () => ({ descriptor: await syncedDescriptor() }),
    act: ({ descriptor = '' }) =>
      t.request
        .put('/api/index/merchants/name')
        .set(admin.headers())
        .send({ merchant: merchantOf(descriptor).name, name: 'Renamed Merchant' }),
    read: ({ descriptor = '' }) =>
      get(`/api/index/merchant?descriptor=${encodeURIComponent(descriptor)}`),
  },
  {
    name: "a merchant's name taken off",
    arrange: async () => {
      const descriptor = await syncedDescriptor();
      await ok(
        t.request
          .put('/api/index/merchants/name')
          .set(admin.headers())
          .send({ merchant: merchantOf(descriptor).name, name: 'Named To Undo' }),
      );
      return { descriptor };
    },
    act: () =>
      t.request.delete('/api/index/merchants/name?merchant=Named%20To%20Undo').set(admin.headers()),
    read: ({ descriptor = '' }) =>
      get(`/api/index/merchant?descriptor=${encodeURIComponent(descriptor)}`),
  },
  {
    name: "a card's owner and team given",
    arrange: async () => ({ cardId: t.sim.data.cards()[0]?.id ?? '' }),
    act: ({ cardId = '' }) =>
      t.request
        .put(`/api/cards/${cardId}/owner`)
        .set(admin.headers())
        .send({ owner: { name: 'Audited Owner' }, team: 'Audited Team' }),
    read: ({ cardId = '' }) => get(`/api/cards/${cardId}`),
  },
  {
    name: "a card's owner and team taken off",
    arrange: async () => {
      const cardId = t.sim.data.cards()[1]?.id ?? '';
      await ok(
        t.request
          .put(`/api/cards/${cardId}/owner`)
          .set(admin.headers())
          .send({ owner: { name: 'Owner To Undo' }, team: null }),
      );
      return { cardId };
    },
    act: ({ cardId = '' }) =>
      t.request
        .put(`/api/cards/${cardId}/owner`)
        .set(admin.headers())
        .send({ owner: null, team: null }),
    read: ({ cardId = '' }) => get(`/api/cards/${cardId}`),
  },
  {
    name: 'a webhook target added',
    arrange: async () => ({}),
    act: () =>
      post('/api/alerts/webhooks', {
        name: `Ops ${++hooks}`,
        url: 'https://hooks.example.test/o',
      }),
    read: () => get('/api/alerts/webhooks'),
  },
  {
    name: 'a passkey enrolled',
    arrange: async () => {
      const options = await ok(post('/api/passkeys/registration-options', {}));
      return { response: JSON.stringify(t.authenticator.create(options, t.config.publicOrigin)) };
    },
    act: ({ response = '' }) =>
      post('/api/passkeys', { name: 'Backup key', response: JSON.parse(response) }),
    read: () => get('/api/second-factors'),
  },
  {
    name: 'a passkey removed',
    arrange: async () => ({ id: await t.enrolAdminPasskey(admin) }),
    act: ({ id = '' }) => t.request.delete(`/api/passkeys/${id}`).set(admin.headers()),
    read: () => get('/api/second-factors'),
  },
  {
    name: 'a passkey renamed',
    arrange: async () => ({
      id: await t.enrolAdminPasskey(admin),
      name: `Renamed key ${Math.random().toString(36).slice(2, 8)}`,
    }),
    act: ({ id = '', name = '' }) =>
      t.request.patch(`/api/passkeys/${id}`).set(admin.headers()).send({ name }),
    read: () => get('/api/second-factors'),
  },
  {
    name: 'TOTP turned off',
    arrange: async () => {
      await t.enrolAdminPasskey(admin);
      await ok(totp(true));
      return {};
    },
    act: () => totp(false),
    read: () => get('/api/second-factors'),
  },
  {
    name: 'TOTP turned back on',
    arrange: async () => {
      await ok(totp(false));
      return {};
    },
    act: () => totp(true),
    read: () => get('/api/second-factors'),
  },
  {
    name: 'a webhook target removed',
    arrange: async () => {
      const target = await ok(
        post('/api/alerts/webhooks', {
          name: `Old ${++hooks}`,
          url: 'https://hooks.example.test/x',
        }),
        201,
      );
      return { id: target.id };
    },
    act: ({ id = '' }) => t.request.delete(`/api/alerts/webhooks/${id}`).set(admin.headers()),
    read: () => get('/api/alerts/webhooks'),
  },
];

describe('when the audit trail cannot take a change’s record, the change is not made', () => {
  it.each(changes)(
    '$name: 503 audit_unavailable, the store unchanged, nothing recorded',
    async (change) => {
      const given = await change.arrange();
      const before = await change.read(given);

      const res = await trail.failing(() => change.act(given));

      expect(res.status, JSON.stringify(res.body)).toBe(503);
      const problem = apiErrorBodySchema.parse(res.body);
      expect(problem.code).toBe('audit_unavailable');
      expect(res.headers['retry-after']).toBe('5');
      expect(await change.read(given)).toEqual(before);
      const recorded = (await t.audit.list({ limit: 1000 })).items;
      expect(recorded.filter((r) => r.requestId === problem.requestId)).toEqual([]);
      // The change was tried: its record was asked for, and refused.
      expect(trail.asked.some((r) => r.requestId === problem.requestId)).toBe(true);

      // With the trail back, the change (arranged afresh) goes through and is recorded.
      const again = await change.act(await change.arrange());
      expect(again.status, JSON.stringify(again.body)).toBeLessThan(300);
      const requestId = again.headers['x-request-id'];
      expect(recorded.length).toBeLessThan((await t.audit.list({ limit: 1000 })).items.length);
      expect(
        (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId),
      ).not.toEqual([]);
    },
  );

  it('an unreachable trail (a PostgreSQL outage) is the same 503, and the notes stay as they were', async () => {
    const id = freshTransactionId();
    trail.error = () => new StoreUnavailableError('postgres', 'audit append');
    try {
      const res = await trail.failing(() =>
        t.request.patch(notesPath(id)).set(finance.headers()).send({ version: 0, memo: 'x' }),
      );
      expect(res.status).toBe(503);
      expect(apiErrorBodySchema.parse(res.body).code).toBe('audit_unavailable');
    } finally {
      trail.error = () => new Error('audit disk full');
    }
    expect(await get(notesPath(id))).toMatchObject({ version: 0, memo: '' });
  });
});
