import { upstreamTransactionSchema } from '@card-console/shared/upstream/transaction';
import { describe, expect, it } from 'vitest';
import {
  collectPages,
  expectError,
  FIXED_NOW,
  jsonInit,
  type LooseJson,
  useService,
} from './test-support/harness';

describe('test hooks', () => {
  const h = useService({ transactions: 300 });

  it("setTransactionText replaces a transaction's free text in the list and the detail", async () => {
    const sub = h.service.data.subAccounts()[0]?.id ?? '';
    const all = h.service.data.transactions(sub);
    const card = all.find((t) => t.merchantData);
    const other = all.find((t) => !t.merchantData);
    if (!card || !other) throw new Error('the test data has no card or no other transaction');

    h.service.testing.setTransactionText(card.id, {
      description: 'replaced description',
      merchantDescription: 'REPLACED MERCHANT',
      declineReason: 'replaced reason',
    });
    h.service.testing.setTransactionText(other.id, { merchantDescription: 'ignored' });

    const detail = await h.get(`/transaction/${card.id}`);
    expect(detail).toEqual({
      ...card,
      description: 'replaced description',
      merchantData: { ...card.merchantData, description: 'REPLACED MERCHANT' },
      declineReason: 'replaced reason',
    });
    // Keys keep the contract's order.
    expect(Object.keys(detail).slice(0, 5)).toEqual(Object.keys(card).slice(0, 5));
    expect(await h.get(`/transaction/${other.id}`)).toEqual(other);

    let listed: LooseJson;
    let cursor = '';
    do {
      const page = await h.get(
        `/transaction?subAccountId=${sub}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      listed ??= page.items.find((t: LooseJson) => t.id === card.id);
      cursor = page.metadata.nextCursor ?? '';
    } while (!listed && cursor);
    expect(listed).toEqual(detail);
  });

  it('setTransactionText refuses an unknown id', () => {
    expect(() => h.service.testing.setTransactionText('txn_zzzzzzz', { description: 'x' })).toThrow(
      /no transaction/,
    );
  });
});

describe('addTransaction', () => {
  const h = useService({ transactions: 400, pageSize: { transactions: 20 } });
  const subs = () => h.service.data.subAccounts();
  /** A sub account with at least two cards, and a card of another sub account. */
  const setting = () => {
    const cards = h.service.data.cards();
    const sub = subs()[0]?.id ?? '';
    const txs = h.service.data.transactions(sub);
    const own = [...new Set(txs.flatMap((t) => (t.cardId ? [t.cardId] : [])))];
    const other = h.service.data
      .transactions(subs()[1]?.id ?? '')
      .find((t) => t.cardId && !own.includes(t.cardId))?.cardId;
    if (own.length < 2 || !other || cards.length === 0) throw new Error('test data too small');
    return { sub, card: own[0] ?? '', otherCard: own[1] ?? '', foreignCard: other };
  };
  const figures = async (id: string) =>
    (await h.get('/sub-account')).items.find((s: LooseJson) => s.id === id);

  it('a declined card transaction is listed first, as the detail says, and moves no money', async () => {
    const { sub, card } = setting();
    const before = await figures(sub);
    const added = h.service.testing.addTransaction({
      subAccountId: sub,
      cardId: card,
      amountCents: -12_345,
      status: 'declined',
      declineReason: 'Card frozen by an admin',
      description: 'Blue Taxi',
      merchantDescription: 'SQ *BLUE TAXI NEW YORK',
      categoryCode: '4121',
    });
    expect(upstreamTransactionSchema.safeParse(added).success).toBe(true);
    expect(added).toMatchObject({
      subAccountId: sub,
      date: new Date(FIXED_NOW).toISOString(),
      description: 'Blue Taxi',
      amountCents: -12_345,
      status: 'declined',
      cardId: card,
      merchantData: { description: 'SQ *BLUE TAXI NEW YORK', categoryCode: '4121' },
      declineReason: 'Card frozen by an admin',
    });
    expect(await h.get(`/transaction/${added.id}`)).toEqual(added);
    for (const filter of ['', '&status=declined', `&card_id=${card}`]) {
      const page = await h.get(`/transaction?subAccountId=${sub}${filter}`);
      expect(page.items[0], filter).toEqual(added);
    }
    // Another card's list, another status's list and another sub account's list do not have it.
    for (const path of [
      `/transaction?subAccountId=${sub}&status=settled`,
      `/transaction?subAccountId=${sub}&card_id=${setting().otherCard}`,
      `/transaction?subAccountId=${subs()[1]?.id}`,
    ]) {
      const { items } = await collectPages<LooseJson>(h, path);
      expect(items.some((t) => t.id === added.id)).toBe(false);
    }
    expect(h.service.data.transactions(sub)[0]).toEqual(added);
    expect(await figures(sub)).toEqual(before);
  });

  it('pages already handed out keep their cursors: a walk resumed from one ends as it would have', async () => {
    const { sub, card } = setting();
    const path = `/transaction?subAccountId=${sub}`;
    /** Every page after the one `cursor` came with. */
    const walkFrom = async (cursor: string) => {
      const items: LooseJson[] = [];
      for (let next: string | undefined = cursor; next; ) {
        const page: LooseJson = await h.get(`${path}&cursor=${encodeURIComponent(next)}`);
        items.push(...page.items);
        next = page.metadata.nextCursor;
      }
      return items;
    };
    const first = await h.get(path);
    const cursor = first.metadata.nextCursor as string;
    const restBefore = await walkFrom(cursor);
    expect(restBefore.length).toBeGreaterThan(20);
    const added = h.service.testing.addTransaction({
      subAccountId: sub,
      cardId: card,
      amountCents: -500,
      status: 'pending',
    });
    expect(await walkFrom(cursor)).toEqual(restBefore);
    // A new walk sees it first, then everything it saw before.
    const all = await collectPages<LooseJson>(h, path);
    expect(all.items[0]).toEqual(added);
    expect(all.items.slice(1)).toEqual([...first.items, ...restBefore]);
    // Newest first by date, then id, still.
    const dates = all.items.map((t) => t.date as string);
    expect([...dates].sort().reverse()).toEqual(dates);
  });

  it("changes the sub account's balance and spend as its status says", async () => {
    const { sub, card } = setting();
    const figuresOf = async () => {
      const s = await figures(sub);
      return { balance: s.balance.amountCents as number, spend: s.spend.amountCents as number };
    };
    const cases = [
      // settled card charge: money left and it is spend
      [{ cardId: card, amountCents: -2_000, status: 'settled' }, -2_000, 2_000],
      // pending card charge: spend only
      [{ cardId: card, amountCents: -700, status: 'pending' }, 0, 700],
      // refund: back in, and less spend
      [{ cardId: card, amountCents: 300, status: 'refund' }, 300, -300],
      // canceled card charge: nothing
      [{ cardId: card, amountCents: -900, status: 'canceled' }, 0, 0],
      // settled ACH payment: balance only
      [
        { amountCents: -40_000, status: 'settled', description: 'ACH payment to Landlord' },
        -40_000,
        0,
      ],
      // failed funding credit: nothing
      [{ amountCents: 90_000, status: 'failed' }, 0, 0],
    ] as const;
    for (const [input, balance, spend] of cases) {
      const before = await figuresOf();
      const added = h.service.testing.addTransaction({ subAccountId: sub, ...input });
      expect(await figuresOf(), JSON.stringify(input)).toEqual({
        balance: before.balance + balance,
        spend: before.spend + spend,
      });
      expect((await h.get(`/transaction?subAccountId=${sub}`)).items[0]).toEqual(added);
    }
    const payment = h.service.data.transactions(sub).find((t) => t.amountCents === -40_000);
    expect(payment).toMatchObject({ description: 'ACH payment to Landlord', status: 'settled' });
    expect(payment?.cardId).toBeUndefined();
  });

  it('adds to a sub account created through the API, which had no transaction', async () => {
    const created = await h.request('/sub-account', jsonInit('POST', { name: 'Events' }));
    expect(created.status, created.text).toBe(201);
    const id = (created.json as LooseJson).id as string;
    const added = h.service.testing.addTransaction({
      subAccountId: id,
      amountCents: 250_000,
      status: 'settled',
    });
    expect(added).toMatchObject({ description: 'Funding transfer from operating account' });
    expect((await h.get(`/transaction?subAccountId=${id}`)).items).toEqual([added]);
    expect((await h.get(`/transaction?subAccountId=${id}&status=settled`)).items).toEqual([added]);
    expect((await h.get(`/transaction?subAccountId=${id}&status=failed`)).items).toEqual([]);
    expect(await figures(id)).toMatchObject({
      balance: { amountCents: 250_000 },
      spend: { amountCents: 0 },
    });
  });

  it('refuses what the service never lists, naming the problem, and adds nothing', () => {
    const { sub, card, foreignCard } = setting();
    const count = h.service.data.transactions(sub).length;
    const base = {
      subAccountId: sub,
      cardId: card,
      amountCents: -100,
      status: 'declined',
    } as const;
    const refused: [object, RegExp][] = [
      [{ ...base, subAccountId: 'sa_nobody' }, /sub account sa_nobody not found/],
      [{ ...base, cardId: 'card_nobody' }, /card card_nobody not found/],
      [{ ...base, cardId: foreignCard }, /belongs to another sub account/],
      [{ ...base, status: 'failed' }, /card transaction cannot be failed/],
      [{ ...base, amountCents: 100 }, /amountCents/],
      [{ ...base, status: 'refund' }, /amountCents/],
      [{ ...base, amountCents: 0 }, /amountCents: must not be 0/],
      [{ ...base, amountCents: 1.5 }, /amountCents/],
      [{ ...base, status: 'settled', declineReason: 'x' }, /only a declined transaction/],
      [{ ...base, status: 'lost' }, /status/],
      [{ ...base, categoryCode: 'taxi' }, /categoryCode: must be four digits/],
      [{ ...base, colour: 'red' }, /colour/],
      [
        { subAccountId: sub, amountCents: -100, status: 'declined' },
        /without a card cannot be declined/,
      ],
      [
        { subAccountId: sub, amountCents: -100, status: 'settled', categoryCode: '5812' },
        /for card transactions/,
      ],
    ];
    for (const [input, message] of refused) {
      expect(() => h.service.testing.addTransaction(input as never), JSON.stringify(input)).toThrow(
        message,
      );
    }
    expect(h.service.data.transactions(sub).length).toBe(count);
  });
});

describe('POST /__testing/transactions', () => {
  const on = useService({ transactions: 200, testRoutes: true });
  const off = useService({ transactions: 200 });
  const body = (h: typeof on) => {
    const sub = h.service.data.subAccounts()[0]?.id ?? '';
    const card = h.service.data.transactions(sub).find((t) => t.cardId)?.cardId ?? '';
    return {
      subAccountId: sub,
      cardId: card,
      amountCents: -4_200,
      status: 'declined',
      declineReason: 'Over the card limit',
      description: 'Oak Suites',
    };
  };

  it('is not served unless the service was made with testRoutes', async () => {
    expectError(
      await off.request('/__testing/transactions', jsonInit('POST', body(off))),
      404,
      'not_found',
    );
    expect(off.service.data.transactions(body(off).subAccountId)[0]?.description).not.toBe(
      'Oak Suites',
    );
  });

  it('adds the transaction (201, as listed), outside counts, faults and the rate limit', async () => {
    on.service.faults.enqueue({ kind: 'status', status: 503 });
    const reply = await on.request('/__testing/transactions', jsonInit('POST', body(on)));
    expect(reply.status, reply.text).toBe(201);
    const added = reply.json as LooseJson;
    expect(added).toMatchObject({ status: 'declined', declineReason: 'Over the card limit' });
    expect(on.service.stats.total()).toBe(0);
    // The queued fault is still there for the client under test.
    expectError(await on.request(`/transaction?subAccountId=${added.subAccountId}`), 503);
    const page = await on.get(`/transaction?subAccountId=${added.subAccountId}`);
    expect(page.items[0]).toEqual(added);
  });

  it('wants the key, POST, a known path and a valid body', async () => {
    const path = '/__testing/transactions';
    expectError(await on.request(path, { ...jsonInit('POST', body(on)), key: null }), 403);
    expectError(await on.request(path, { ...jsonInit('POST', body(on)), key: 'wrong' }), 403);
    const get = await on.request(path);
    expectError(get, 405, 'method_not_allowed');
    expect(get.headers.get('allow')).toBe('POST');
    expectError(await on.request('/__testing/cards', jsonInit('POST', {})), 404);
    expectError(await on.request(path, jsonInit('POST', '{not json')), 400, 'invalid_request');
    const bad = await on.request(path, jsonInit('POST', { ...body(on), amountCents: '5' }));
    expectError(bad, 400, 'invalid_request');
    expect(bad.text).toContain('amountCents');
    expectError(
      await on.request(path, jsonInit('POST', { ...body(on), subAccountId: 'sa_nobody' })),
      404,
      'not_found',
    );
  });
});
