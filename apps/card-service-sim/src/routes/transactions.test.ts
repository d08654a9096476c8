import { listEnvelopeSchema } from '@card-console/shared/upstream/common';
import {
  transactionStatuses,
  upstreamTransactionSchema,
} from '@card-console/shared/upstream/transaction';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Transaction } from '../data/model';
import { collectPages, expectError, useService } from '../test-support/harness';

const ms = (iso: string) => Date.parse(iso);

describe('GET /transaction', () => {
  const h = useService({ transactions: 3_000, pageSize: { transactions: 40 } });
  let subId: string;
  let all: Transaction[];

  beforeAll(() => {
    const first = h.service.data.subAccounts()[0];
    if (!first) throw new Error('no sub account');
    subId = first.id;
    all = h.service.data.transactions(subId);
  });

  it('returns a list envelope of well-formed transactions, newest first by (date, id)', async () => {
    const page = await h.get(`/transaction?subAccountId=${subId}`);
    const parsed = listEnvelopeSchema(upstreamTransactionSchema).parse(page);
    expect(parsed.items).toHaveLength(40);
    expect(parsed.metadata.count).toBe(40);
    expect(parsed.metadata.nextCursor).toBeTypeOf('string');
    for (let i = 1; i < parsed.items.length; i++) {
      const a = parsed.items[i - 1];
      const b = parsed.items[i];
      if (!a || !b) continue;
      const order = ms(a.date) - ms(b.date) || (a.id > b.id ? 1 : -1);
      expect(order).toBeGreaterThan(0);
    }
    expect(parsed.items.every((t) => t.subAccountId === subId)).toBe(true);
  });

  it('pages to the end with every transaction exactly once and no cursor on the last page', async () => {
    const { items } = await collectPages<Transaction>(h, `/transaction?subAccountId=${subId}`);
    expect(items.map((t) => t.id)).toEqual(all.map((t) => t.id));
    expect(new Set(items.map((t) => t.id)).size).toBe(items.length);
  });

  it('pages stay exact while a card is patched between pages', async () => {
    const card = h.service.data.cards()[0];
    if (!card) throw new Error('no card');
    const { items } = await collectPages<Transaction>(
      h,
      `/transaction?subAccountId=${subId}`,
      async (n) => {
        const reply = await h.request(`/card/${card.id}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Renamed ${n}` }),
        });
        expect(reply.status).toBe(200);
      },
    );
    expect(items.map((t) => t.id)).toEqual(all.map((t) => t.id));
  });

  it('includes a transaction at exactly from_date and at exactly to_date, excludes one ms outside', async () => {
    const older = all[all.length - 200];
    const newer = all[100];
    if (!older || !newer) throw new Error('not enough data');
    const from = ms(older.date);
    const to = ms(newer.date);
    const expected = (f: number, t: number) =>
      all.filter((x) => ms(x.date) >= f && ms(x.date) <= t).map((x) => x.id);
    const inclusive = await collectPages<Transaction>(
      h,
      `/transaction?subAccountId=${subId}&from_date=${from}&to_date=${to}`,
    );
    const ids = inclusive.items.map((t) => t.id);
    expect(ids).toContain(older.id);
    expect(ids).toContain(newer.id);
    expect(ids).toEqual(expected(from, to));
    const exclusive = await collectPages<Transaction>(
      h,
      `/transaction?subAccountId=${subId}&from_date=${from + 1}&to_date=${to - 1}`,
    );
    const inner = exclusive.items.map((t) => t.id);
    expect(inner).not.toContain(older.id);
    expect(inner).not.toContain(newer.id);
    expect(inner).toEqual(expected(from + 1, to - 1));
  });

  it('a single-millisecond range returns exactly the transactions at that millisecond', async () => {
    const target = all[500];
    if (!target) throw new Error('not enough data');
    const t = ms(target.date);
    const page = await h.get(`/transaction?subAccountId=${subId}&from_date=${t}&to_date=${t}`);
    expect(page.items.map((x: Transaction) => x.id)).toEqual(
      all.filter((x) => ms(x.date) === t).map((x) => x.id),
    );
  });

  it('filters by each status', async () => {
    for (const status of transactionStatuses) {
      const { items } = await collectPages<Transaction>(
        h,
        `/transaction?subAccountId=${subId}&status=${status}`,
      );
      expect(items.map((t) => t.id)).toEqual(
        all.filter((t) => t.status === status).map((t) => t.id),
      );
    }
  });

  it('filters by card, alone and with status and dates', async () => {
    const cardId = all.find((t) => t.cardId)?.cardId;
    if (!cardId) throw new Error('no card transaction');
    const byCard = await collectPages<Transaction>(
      h,
      `/transaction?subAccountId=${subId}&card_id=${cardId}`,
    );
    expect(byCard.items.map((t) => t.id)).toEqual(
      all.filter((t) => t.cardId === cardId).map((t) => t.id),
    );
    const mid = ms(all[Math.floor(all.length / 2)]?.date ?? '');
    const combined = await collectPages<Transaction>(
      h,
      `/transaction?subAccountId=${subId}&card_id=${cardId}&status=settled&to_date=${mid}`,
    );
    expect(combined.items.map((t) => t.id)).toEqual(
      all
        .filter((t) => t.cardId === cardId && t.status === 'settled' && ms(t.date) <= mid)
        .map((t) => t.id),
    );
  });

  it('a card of another sub account, or an unknown card, matches nothing', async () => {
    const other = h.service.data.subAccounts()[1];
    const foreignCard =
      other && h.service.data.transactions(other.id).find((t) => t.cardId)?.cardId;
    expect(foreignCard).toBeDefined();
    const page = await h.get(`/transaction?subAccountId=${subId}&card_id=${foreignCard}`);
    expect(page).toEqual({ items: [], metadata: { count: 0 } });
    const unknown = await h.get(`/transaction?subAccountId=${subId}&card_id=card_nope`);
    expect(unknown.items).toEqual([]);
  });

  it('has all nine statuses, card-only fields only on card transactions, and signed amounts', () => {
    // Over every sub account: pending ones are only the last three days' (about 10 of 3,000).
    const every = h.service.data.subAccounts().flatMap((s) => h.service.data.transactions(s.id));
    const statuses = new Set(every.map((t) => t.status));
    expect([...statuses].sort()).toEqual([...transactionStatuses].sort());
    for (const t of all) {
      if (t.cardId) {
        expect(t.authorizedAt).toBeTypeOf('string');
        expect(t.merchantData?.categoryCode).toMatch(/^\d{4}$/);
      } else {
        expect(t.authorizedAt).toBeUndefined();
        expect(t.merchantData).toBeUndefined();
      }
      if (t.status === 'declined') expect(t.declineReason).toBeTypeOf('string');
      else expect(t.declineReason).toBeUndefined();
      if (t.status === 'refund') expect(t.amountCents).toBeGreaterThan(0);
      if (t.cardId && t.status !== 'refund') expect(t.amountCents).toBeLessThan(0);
    }
    expect(all.some((t) => t.originalCurrency)).toBe(true);
    expect(all.some((t) => !t.cardId && t.amountCents > 0)).toBe(true);
  });

  it('holds pending payments only from the last three days, as a real program settles them', () => {
    const every = h.service.data.subAccounts().flatMap((s) => h.service.data.transactions(s.id));
    const pending = every.filter((t) => t.status === 'pending');
    expect(pending.length).toBeGreaterThan(0);
    // The newest transaction is no later than the data's "now".
    const since = Math.max(...every.map((t) => ms(t.date))) - 3 * 86_400_000;
    for (const t of pending) expect(ms(t.date)).toBeGreaterThan(since);
    // Older card payments all ended one way or another.
    expect(every.some((t) => t.cardId && t.status === 'settled' && ms(t.date) < since)).toBe(true);
  });

  it('rejects a missing subAccountId, bad dates, a bad status and from after to with 400', async () => {
    const bad = [
      '/transaction',
      `/transaction?subAccountId=${subId}&from_date=yesterday`,
      `/transaction?subAccountId=${subId}&to_date=-5`,
      `/transaction?subAccountId=${subId}&from_date=1.5`,
      `/transaction?subAccountId=${subId}&status=SETTLED`,
      `/transaction?subAccountId=${subId}&from_date=2000&to_date=1000`,
      `/transaction?subAccountId=${subId}&limit=10`,
      `/transaction?subAccountId=${subId}&status=settled&status=pending`,
    ];
    for (const path of bad) expectError(await h.request(path), 400, 'invalid_request');
  });

  it('answers 404 for an unknown sub account', async () => {
    expectError(await h.request('/transaction?subAccountId=sa_missing'), 404, 'not_found');
  });

  it('rejects a tampered cursor and a cursor reused under another filter with 400', async () => {
    const page = await h.get(`/transaction?subAccountId=${subId}`);
    const cursor: string = page.metadata.nextCursor;
    const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    for (const c of [flipped, `${cursor}x`, 'garbage', 'a.b', cursor.split('.')[0] ?? '']) {
      expectError(
        await h.request(`/transaction?subAccountId=${subId}&cursor=${encodeURIComponent(c)}`),
        400,
      );
    }
    expectError(
      await h.request(`/transaction?subAccountId=${subId}&status=settled&cursor=${cursor}`),
      400,
    );
    const other = h.service.data.subAccounts()[1]?.id;
    expectError(await h.request(`/transaction?subAccountId=${other}&cursor=${cursor}`), 400);
    const cards = await h.get('/card');
    expectError(
      await h.request(`/transaction?subAccountId=${subId}&cursor=${cards.metadata.nextCursor}`),
      400,
    );
  });
});

describe('GET /transaction/:id', () => {
  const h = useService({ transactions: 500 });

  it('returns the transaction as the list shows it', async () => {
    const sub = h.service.data.subAccounts()[0]?.id;
    const page = await h.get(`/transaction?subAccountId=${sub}`);
    const listed = page.items[3];
    const read = await h.get(`/transaction/${listed.id}`);
    expect(upstreamTransactionSchema.parse(read)).toEqual(listed);
  });

  it('answers 404 for unknown, malformed and out-of-range ids', async () => {
    for (const id of ['txn_zzzzzzz', 'txn_1', 'nope', '%E0%A4%A', 'txn_0000001x']) {
      expectError(await h.request(`/transaction/${id}`), 404, 'not_found');
    }
  });

  it('rejects query parameters it does not know with 400', async () => {
    const id = h.service.data.transactions(h.service.data.subAccounts()[0]?.id ?? '')[0]?.id;
    expectError(await h.request(`/transaction/${id}?include_pan=true`), 400);
  });
});
