// The index sync raises alerts: a sub account synced from the simulator over HTTP into the index
// (PGlite, and PostgreSQL), with the alerts hook the app wires. The simulator cannot add a
// transaction at runtime (its data is generated once; only free text can be replaced), so a rule
// "older than a transaction" is one saved with a creation time just before the newest decline,
// and syncing again means forgetting the walked days so every row is written and evaluated anew.
import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../core/clock';
import { InProcessJobRunner } from '../../platform/jobs/in-process-job-runner';
import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { postgresEngine, type SqlEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { testDatabase } from '../../test/engines/postgres';
import { testClient, useSimulator } from '../../test/upstream-client';
import {
  createIndexSync,
  type IndexRowsWritten,
  TransactionIndexStore,
  upstreamSubAccountList,
} from '../transaction-index';
import { AlertStore } from './alert-store';
import { raiseAlertsOnSync } from './alert-sync';

const ana = 'ana@example.test';
const bo = 'bo@example.test';
const admin = 'admin@example.test';
const declinedRule = (name: string, extra: object = {}) => ({
  kind: 'declined',
  name,
  channels: { inbox: true, email: false },
  ...extra,
});

const engines: [string, () => Promise<{ engine: SqlEngine; stop(): Promise<void> }>][] = [
  ['PGlite', async () => ({ engine: await migratedMemoryEngine(), stop: async () => {} })],
  [
    'PostgreSQL',
    async () => {
      const database = await testDatabase();
      const engine = postgresEngine(new pg.Pool({ connectionString: database.url, max: 4 }));
      return {
        engine,
        stop: async () => {
          await engine.close();
          await database.stop();
        },
      };
    },
  ],
];

describe.each(engines)('an index sync raises alerts (%s)', (_name, open) => {
  const upstream = useSimulator({ subAccounts: 2, transactions: 1_200, months: 2 });
  let engine: SqlEngine;
  let stop: () => Promise<void>;
  let store: TransactionIndexStore;
  let alerts: AlertStore;
  beforeAll(async () => {
    ({ engine, stop } = await open());
    await applyIndexMigrations(engine, silentLogger);
    store = new TransactionIndexStore(engine);
    alerts = new AlertStore(engine);
  }, 90_000);
  afterAll(() => stop?.());

  const hook = (overrides: Partial<Parameters<typeof raiseAlertsOnSync>[0]> = {}) =>
    raiseAlertsOnSync({
      stores: { alerts: async () => alerts },
      cardDirectory: {
        ready: async () => {},
        label: (id) => {
          const card = upstream.sim.data.cards().find((c) => c.id === id);
          return card ? { name: card.name, last4: card.last4 } : undefined;
        },
        utilizationLimit: () => ({ known: false }),
      },
      clock: systemClock,
      logger: silentLogger,
      teamRecipients: () => [ana, bo, admin],
      ...overrides,
    });

  /** Syncs `subAccountId` from scratch (every day walked, every row written and evaluated). */
  async function syncAll(
    subAccountId: string,
    rowsWritten: IndexRowsWritten,
    logger = silentLogger,
  ) {
    await engine.query('DELETE FROM index_sync_day WHERE sub_account_id = $1', [subAccountId]);
    const job = createIndexSync({
      upstream: testClient(upstream.url).client,
      store,
      jobs: new InProcessJobRunner({
        clock: systemClock,
        cutOff: new AbortController().signal,
        failureMemoryMs: 0,
      }),
      clock: systemClock,
      logger,
      rowsWritten,
    }).sync(subAccountId, `req-alerts-${Date.now()}`);
    await job.done;
    expect(job.outcome()).toMatchObject({ ok: true });
  }

  const inboxOf = async (person: string) => (await alerts.inbox(person, { limit: 100 })).items;

  it('a decline after a person’s rule reaches their inbox once; syncing again adds none; a later rule raises nothing for it', async () => {
    const sub = upstream.sim.data.subAccounts()[0]?.id as string;
    // Newest first: the first declined row is the newest decline of the sub account.
    const decline = upstream.sim.data.transactions(sub).find((t) => t.status === 'declined') as
      | UpstreamTransaction
      | undefined;
    if (!decline) throw new Error('the simulator has no declined transaction');
    const before = new Date(Date.parse(decline.date) - 1_000);
    const anasRule = await alerts.createRule(declinedRule('My declines'), ana, before);

    await syncAll(sub, hook());
    const items = await inboxOf(ana);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      ruleId: anasRule.id,
      readAt: null,
      payload: {
        kind: 'declined',
        ruleName: 'My declines',
        subAccount: { id: sub },
        transaction: { id: decline.id, status: 'declined', amountCents: decline.amountCents },
      },
    });
    if (decline.cardId) {
      const card = upstream.sim.data.cards().find((c) => c.id === decline.cardId);
      expect(items[0]?.payload.card).toEqual({
        id: decline.cardId,
        name: card?.name,
        lastFour: card?.last4,
      });
    }
    expect(await alerts.unreadCount(bo)).toBe(0);

    await syncAll(sub, hook());
    expect(await inboxOf(ana)).toHaveLength(1);
    const [{ n }] = (await engine.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM alert WHERE rule_id = $1',
      [anasRule.id],
    )) as [{ n: number }];
    expect(Number(n)).toBe(1);

    // Bo's rule, saved now: every transaction the simulator has is older than it.
    await alerts.createRule(declinedRule('Bo’s declines'), bo, new Date());
    await syncAll(sub, hook());
    expect(await inboxOf(bo)).toEqual([]);
    expect(await inboxOf(ana)).toHaveLength(1);
  }, 120_000);

  it("a rule to the card's owner reaches the owner's inbox too, and says the merchant's name", async () => {
    const sub = upstream.sim.data.subAccounts()[0]?.id as string;
    const decline = upstream.sim.data
      .transactions(sub)
      .find((t) => t.status === 'declined' && t.cardId && t.merchantData?.description);
    if (!decline?.cardId) throw new Error('the simulator has no declined card transaction');
    const owner = 'cardholder@example.test';
    await engine.query('DELETE FROM card_owner');
    await engine.query(
      `INSERT INTO card_owner (card_id, owner_name, owner_key, owner_email, updated_by, updated_at)
       VALUES ($1, 'Card Holder', 'card holder', $2, 'a', now())`,
      [decline.cardId, owner],
    );
    await engine.query(
      `INSERT INTO person (email, role, source, created_at, updated_at)
       VALUES ($1, 'finance', 'invited', now(), now()) ON CONFLICT DO NOTHING`,
      [owner],
    );
    const rule = await alerts.createRule(
      declinedRule('Declines, and to the holder', { cardId: decline.cardId, cardOwner: true }),
      admin,
      new Date(Date.parse(decline.date) - 1_000),
    );
    const text = decline.merchantData?.description as string;
    await syncAll(
      sub,
      hook({
        merchantNames: async (texts) => new Map(texts.map((t) => [t, { name: `Named ${t}` }])),
        // The holder is a person who may be alerted (the directory lists them).
        teamRecipients: () => [ana, bo, admin, owner],
      }),
    );
    const items = (await inboxOf(owner)).filter((i) => i.ruleId === rule.id);
    expect(items).toHaveLength(1);
    expect(items[0]?.payload).toMatchObject({
      transaction: { id: decline.id, merchant: text, merchantName: `Named ${text}` },
    });
    expect((await inboxOf(admin)).filter((i) => i.ruleId === rule.id)).toHaveLength(1);
    await alerts.deleteRule(rule.id, 1);
    await engine.query('DELETE FROM card_owner');
  }, 120_000);

  it('a team rule’s alert goes to every person the app knows; a rule of another sub account raises nothing', async () => {
    const sub = upstream.sim.data.subAccounts()[1]?.id as string;
    const other = upstream.sim.data.subAccounts()[0]?.id as string;
    const decline = upstream.sim.data.transactions(sub).find((t) => t.status === 'declined');
    if (!decline) throw new Error('the simulator has no declined transaction');
    const before = new Date(Date.parse(decline.date) - 1_000);
    const team = await alerts.createRule(
      declinedRule('Team declines', { team: true }),
      admin,
      before,
    );
    const elsewhere = await alerts.createRule(
      declinedRule('Other sub account', { subAccountId: other }),
      bo,
      before,
    );
    await syncAll(sub, hook());
    for (const person of [ana, bo, admin]) {
      const items = await inboxOf(person);
      expect(items.filter((i) => i.ruleId === team.id).map((i) => i.payload)).toMatchObject([
        { kind: 'declined', transaction: { id: decline.id } },
      ]);
      expect(items.filter((i) => i.ruleId === elsewhere.id)).toEqual([]);
    }
  }, 120_000);

  it('a failure to evaluate or raise is logged and the sync still completes', async () => {
    const sub = upstream.sim.data.subAccounts()[0]?.id as string;
    const warn = vi.fn();
    const logger = { ...silentLogger, info: () => {}, warn } as unknown as typeof silentLogger;
    const broken = hook({
      stores: { alerts: () => Promise.reject(new Error('alert store unreachable')) },
    });
    await syncAll(sub, broken, logger);
    const walked = await store.walkedDays(sub);
    expect(walked.size).toBeGreaterThan(0);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ subAccountId: sub }),
      'alerts not evaluated for rows the index sync wrote',
    );
  }, 120_000);

  it('a balance under a rule’s amount raises one alert per sub account and day, from the kept sub-account list; syncs without new rows count too', async () => {
    const [first, second] = upstream.sim.data.subAccounts();
    if (!first?.balance || !second?.balance) throw new Error('the simulator has no balances');
    const list = upstreamSubAccountList(testClient(upstream.url).client, systemClock, 60_000);
    const reads = vi.fn((ctx: Parameters<typeof list.all>[0]) => list.all(ctx));
    const balances = hook({
      subAccountBalances: async (ctx) =>
        new Map(
          (await reads(ctx)).flatMap((s) =>
            s.balance
              ? [[s.id, { balanceCents: s.balance.amountCents, name: s.name }] as const]
              : [],
          ),
        ),
    });
    const low = await alerts.createRule(
      {
        kind: 'balance_below',
        name: 'Balance low',
        subAccountId: first.id,
        amountCents: first.balance.amountCents + 1,
        channels: { inbox: true, email: false },
      },
      ana,
      new Date(),
    );
    // Under the other sub account's balance by a cent: it is not under it.
    await alerts.createRule(
      {
        kind: 'balance_below',
        name: 'Not low',
        subAccountId: second.id,
        amountCents: Math.max(1, second.balance.amountCents),
        channels: { inbox: true, email: false },
      },
      ana,
      new Date(),
    );
    const balanceItems = async () =>
      (await inboxOf(ana)).filter((i) => i.payload.kind === 'balance_below');

    await syncAll(first.id, balances);
    await syncAll(second.id, balances);
    const items = await balanceItems();
    expect(items.map((i) => i.ruleId)).toEqual([low.id]);
    expect(items[0]?.payload).toMatchObject({
      kind: 'balance_below',
      // Named, so the bell says which sub account ("A sub account …" before).
      subAccount: { id: first.id, name: first.name },
      thresholdCents: first.balance.amountCents + 1,
      balanceCents: first.balance.amountCents,
      day: new Date().toISOString().slice(0, 10),
    });
    // Syncing again the same day raises nothing more.
    await syncAll(first.id, balances);
    expect(await balanceItems()).toHaveLength(1);
    // A sync that wrote no row still looks at the balance.
    await engine.query('DELETE FROM alert WHERE rule_id = $1', [low.id]);
    expect(await balanceItems()).toEqual([]);
    await balances({ subAccountId: first.id, ctx: { requestId: 'no-rows' }, rows: [], store });
    expect(await balanceItems()).toHaveLength(1);
    // Without balances given, a balance rule raises nothing and no list is read.
    await engine.query('DELETE FROM alert WHERE rule_id = $1', [low.id]);
    const readsBefore = reads.mock.calls.length;
    await syncAll(first.id, hook());
    expect(await balanceItems()).toEqual([]);
    expect(reads.mock.calls.length).toBe(readsBefore);
  }, 120_000);
});
