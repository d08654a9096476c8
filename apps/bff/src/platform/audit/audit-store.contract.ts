// One behaviour suite for every AuditStore implementation (the embedded JSON-lines file and
// PostgreSQL): appending and chaining, the audit screen's filters alone and combined, keyset
// paging while records arrive, and many appends at once forming one valid chain.
import type { AuditFilter, AuditRecord } from '@card-console/shared/api/audit';
import { afterEach, describe, expect, it } from 'vitest';
import { testPan } from '../../test/test-pan';
import type { AuditChainSource } from './audit-chain';
import type { AuditStore, NewAuditRecord } from './audit-store';
import { verifyChain } from './verify-chain';

export interface AuditStoreFixture {
  store: AuditStore & Required<Pick<AuditStore, 'appendMany'>> & AuditChainSource;
  /** Lets `ms` of time pass before the next append (a manual clock moves; a real one is awaited). */
  tick(ms: number): Promise<void>;
  /** Another store on the same trail, as another replica has, when the implementation allows it. */
  sibling?: () => Promise<AuditStore>;
  close(): Promise<void>;
}

const actors = ['ada@example.com', 'bo@example.com', 'cy@example.com'];
const actions = ['card.reveal', 'card.update', 'access.denied', 'session.signIn'] as const;
const outcomes = ['success', 'denied', 'failed'] as const;

const attempts = ['card.reveal', 'card.update', 'audit.view'] as const;

/**
 * The n-th record of a varied trail: three people, four actions, three outcomes, four cards;
 * each refusal names one of three attempts.
 */
function varied(n: number): NewAuditRecord {
  const action = actions[n % 4] as NewAuditRecord['action'];
  return {
    actor: actors[n % 3] as string,
    role: 'admin',
    action,
    ...(action === 'access.denied' ? { attempted: attempts[Math.floor(n / 4) % 3] } : {}),
    outcome: outcomes[Math.floor(n / 2) % 3] as NewAuditRecord['outcome'],
    ...(n % 5 === 0 ? {} : { cardId: `card_${n % 4}` }),
    requestId: `req-${n}`,
  };
}

/** What the screen must show for `filter`: written here again, independent of any store. */
function expected(records: AuditRecord[], filter: AuditFilter): string[] {
  return records
    .filter(
      (r) =>
        (filter.actor === undefined || r.actor === filter.actor) &&
        (filter.action === undefined || r.action === filter.action) &&
        (filter.attempted === undefined || r.attempted === filter.attempted) &&
        (filter.outcome === undefined || r.outcome === filter.outcome) &&
        (filter.cardId === undefined || r.cardId === filter.cardId) &&
        (filter.from === undefined || Date.parse(r.at) >= filter.from) &&
        (filter.to === undefined || Date.parse(r.at) <= filter.to),
    )
    .map((r) => r.id)
    .sort((a, b) => Number(b) - Number(a));
}

/** Every page of `filter`, `limit` at a time, following the cursor; the ids in order. */
async function walk(store: AuditStore, filter: AuditFilter, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1_000; pages++) {
    const page = await store.list({ limit, filter, ...(cursor ? { cursor } : {}) });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    ids.push(...page.items.map((r) => r.id));
    if (!page.nextCursor) return ids;
    expect(page.items).toHaveLength(limit);
    cursor = page.nextCursor;
  }
  throw new Error('paging did not end');
}

export function auditStoreContract(
  name: string,
  fresh: () => Promise<AuditStoreFixture>,
  { shared = false }: { shared?: boolean } = {},
) {
  describe(`${name} (AuditStore contract)`, () => {
    let fixture: AuditStoreFixture | undefined;
    const open = async () => {
      fixture = await fresh();
      return fixture;
    };
    afterEach(async () => {
      await fixture?.close();
      fixture = undefined;
    });

    it('numbers records 1, 2, 3… and lists them newest first, as written', async () => {
      const { store } = await open();
      const written: AuditRecord[] = [];
      for (let i = 0; i < 3; i++) written.push(await store.append(varied(i)));
      expect(written.map((r) => r.id)).toEqual(['1', '2', '3']);
      const snapshot = {
        ...varied(9),
        target: 'PATCH /api/cards/:id',
        last4: '0042',
        subAccountId: 'sub_1',
        before: { name: 'Travel', minimumCents: 0, maximumCents: 50_000 },
        after: { name: 'Trips', maximumCents: 75_000 },
        reason: 'limit review',
        detail: 'Ünïcode ✓ and "quotes"',
      };
      written.push(await store.append(snapshot));
      expect(written[3]).toMatchObject(snapshot);
      expect(written[3]?.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const page = await store.list({ limit: 10 });
      expect(page).toEqual({ items: [...written].reverse() });
    });

    it('gives every record a link to the one before it that verifies', async () => {
      const { store } = await open();
      for (let i = 0; i < 5; i++) await store.append(varied(i));
      const links: string[][] = [];
      for await (const r of store.records()) links.push([r.id, r.prevHash ?? '', r.hash ?? '']);
      expect(links.map(([id]) => id)).toEqual(['1', '2', '3', '4', '5']);
      expect(links[0]?.[1]).toBe('0'.repeat(64));
      for (let i = 1; i < links.length; i++) expect(links[i]?.[1]).toBe(links[i - 1]?.[2]);
      expect(await verifyChain(store.records())).toMatchObject({
        verified: 5,
        head: links[4]?.[2],
      });
    });

    it('serves every filter of the audit screen, alone and combined, page by page', async () => {
      const { store, tick } = await open();
      const written: AuditRecord[] = [];
      for (let i = 0; i < 36; i++) {
        written.push(await store.append(varied(i)));
        if (i % 6 === 5) await tick(20);
      }
      const times = [...new Set(written.map((r) => Date.parse(r.at)))].sort((a, b) => a - b);
      expect(times.length).toBeGreaterThanOrEqual(4);
      const [early, mid, late] = [times[1], times[2], times.at(-2)] as number[];
      const filters: AuditFilter[] = [
        {},
        { actor: 'ada@example.com' },
        { action: 'card.reveal' },
        { outcome: 'denied' },
        { cardId: 'card_2' },
        { from: mid },
        { to: mid },
        { from: early, to: late },
        { from: mid, to: mid },
        { action: 'access.denied', outcome: 'failed' },
        { actor: 'bo@example.com', action: 'card.update' },
        { actor: 'cy@example.com', cardId: 'card_2', outcome: 'success' },
        { cardId: 'card_1', from: early, to: late },
        { actor: 'ada@example.com', action: 'card.reveal', outcome: 'denied', from: early },
        { attempted: 'card.reveal' },
        { action: 'access.denied', attempted: 'audit.view' },
        { attempted: 'card.update', outcome: 'success', from: early },
        { action: 'card.reveal', attempted: 'card.reveal' },
        { actor: 'nobody@example.com' },
        { from: (times.at(-1) as number) + 1 },
        { to: (times[0] as number) - 1 },
      ];
      for (const filter of filters) {
        const want = expected(written, filter);
        expect(await walk(store, filter, 4), JSON.stringify(filter)).toEqual(want);
      }
      for (const some of [
        { action: 'access.denied', outcome: 'failed' },
        { attempted: 'card.reveal' },
        { action: 'access.denied', attempted: 'audit.view' },
      ] as const) {
        expect(expected(written, some).length, JSON.stringify(some)).toBeGreaterThan(0);
      }
    });

    it('keeps a sign-in’s method and a refusal’s attempt as written, in the list and the chain', async () => {
      const { store } = await open();
      const signIn = await store.append({ ...varied(3), method: 'password+passkey' });
      const refusal = await store.append({
        ...varied(2),
        target: 'POST /api/cards/:id/reveal',
        attempted: 'card.reveal',
        detail: 'bad_origin',
      });
      const plain = await store.append(varied(1));
      expect(signIn.method).toBe('password+passkey');
      expect(refusal.attempted).toBe('card.reveal');
      expect(plain).not.toHaveProperty('attempted');
      expect(await store.list({ limit: 10 })).toEqual({ items: [plain, refusal, signIn] });
      const stored: AuditRecord[] = [];
      for await (const r of store.records()) {
        const { prevHash: _p, hash: _h, ...content } = r;
        stored.push(content);
      }
      expect(stored).toEqual([signIn, refusal, plain]);
      // The hash covers both fields: the verifier reads them back exactly as they were sealed.
      expect(await verifyChain(store.records())).toMatchObject({ verified: 3 });
      expect((await store.list({ limit: 10, filter: { attempted: 'card.reveal' } })).items).toEqual(
        [refusal],
      );
    });

    it('ends paging exactly: a page that holds the last record has no cursor', async () => {
      const { store } = await open();
      for (let i = 0; i < 6; i++) await store.append(varied(i));
      const first = await store.list({ limit: 3 });
      expect(first.nextCursor).toBe('4');
      const second = await store.list({ limit: 3, cursor: first.nextCursor });
      expect(second.items.map((r) => r.id)).toEqual(['3', '2', '1']);
      expect(second.nextCursor).toBeUndefined();
      expect(await store.list({ limit: 3, cursor: '1' })).toEqual({ items: [] });
    });

    it('keeps pages stable while new records arrive between them, filtered or not', async () => {
      const { store } = await open();
      for (let i = 0; i < 12; i++) await store.append(varied(i));
      for (const filter of [{}, { actor: 'ada@example.com' }] as AuditFilter[]) {
        const before = await walk(store, filter, 100);
        const first = await store.list({ limit: 2, filter });
        const seen = first.items.map((r) => r.id);
        let cursor = first.nextCursor;
        while (cursor) {
          await Promise.all([store.append(varied(0)), store.append(varied(3))]);
          const page = await store.list({ limit: 2, filter, cursor });
          seen.push(...page.items.map((r) => r.id));
          cursor = page.nextCursor;
        }
        expect(seen).toEqual(before);
      }
    });

    it('chains 200 appends made at once into one valid trail, ids 1 to 200', async () => {
      const { store } = await open();
      const written = await Promise.all(
        Array.from({ length: 200 }, (_, i) => store.append(varied(i))),
      );
      expect(written.map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 200 }, (_, i) => i + 1),
      );
      expect(await verifyChain(store.records())).toMatchObject({ verified: 200 });
      expect(await walk(store, {}, 50)).toEqual(expected(written, {}));
      // Newest first by id is newest first by time too: the time filter agrees with the order.
      const byId = [...written].sort((a, b) => Number(a.id) - Number(b.id));
      for (let i = 1; i < byId.length; i++) {
        expect(Date.parse(byId[i]?.at ?? '')).toBeGreaterThanOrEqual(
          Date.parse(byId[i - 1]?.at ?? ''),
        );
      }
    });

    it('appends many at once: consecutive ids chained after what was there, all or none', async () => {
      const { store } = await open();
      await store.append(varied(0));
      const many = Array.from({ length: 1_200 }, (_, i) => varied(i + 1));
      const written = await store.appendMany(many);
      expect(written.map((r) => r.id)).toEqual(many.map((_, i) => String(i + 2)));
      expect(written[1_199]).toMatchObject(varied(1_200));
      const after = await store.append(varied(9));
      expect(after.id).toBe('1202');
      expect(await verifyChain(store.records())).toMatchObject({ verified: 1_202 });
      // One of them refused (a card number): none is written, and the trail goes on.
      await expect(
        store.appendMany([varied(1), { ...varied(2), reason: `card ${testPan(7)}` }, varied(3)]),
      ).rejects.toThrow(/card number/);
      expect((await store.list({ limit: 1 })).items[0]?.id).toBe('1202');
      expect((await store.append(varied(4))).id).toBe('1203');
      expect(await verifyChain(store.records())).toMatchObject({ verified: 1_203 });
    });

    it('refuses a record holding a card number, writing nothing, and goes on after it', async () => {
      const { store } = await open();
      await store.append(varied(1));
      await expect(store.append({ ...varied(2), reason: `card ${testPan(7)}` })).rejects.toThrow(
        /card number/,
      );
      const next = await store.append({ ...varied(3), cvv: '123' } as NewAuditRecord);
      expect(next.id).toBe('2');
      expect(next).not.toHaveProperty('cvv');
      expect(await verifyChain(store.records())).toMatchObject({ verified: 2 });
    });

    it('refuses a card number however its digit groups are joined, in any field', async () => {
      const { store } = await open();
      const pan = testPan(8);
      const inFours = (join: string) => pan.match(/.{4}/g)?.join(join) ?? pan;
      const records = [
        { ...varied(1), reason: `card ${inFours('.')}` },
        { ...varied(2), reason: `card ${inFours('\u00A0')}` },
        { ...varied(3), reason: `card ${inFours('\u2009')}` },
        { ...varied(4), reason: `card ${inFours('\n')}` },
        { ...varied(5), detail: `card ${inFours('_')}` },
        { ...varied(6), target: inFours('/') },
        { ...varied(7), requestId: `req-${inFours('.')}` },
        { ...varied(8), before: { name: `Ops ${inFours('\u202F')}` } },
      ];
      for (const record of records) {
        await expect(store.append(record), JSON.stringify(record)).rejects.toThrow(/card number/);
      }
      expect((await store.list({ limit: 10 })).items).toEqual([]);
      // Dates, times and amounts are not card numbers.
      const kept = await store.append({
        ...varied(9),
        reason: 'call on 2026/11/26 12:30:45 about 1,234,567.89',
      });
      expect(kept.id).toBe('1');
    });

    it('stores text no database can hold as U+FFFD, and the chain still verifies', async () => {
      const { store } = await open();
      const written = await store.append({ ...varied(1), reason: 'nul\u0000 and \uDC00 alone' });
      expect(written.reason).toBe('nul\uFFFD and \uFFFD alone');
      expect((await store.list({ limit: 1 })).items[0]?.reason).toBe(written.reason);
      expect(await verifyChain(store.records())).toMatchObject({ verified: 1 });
    });

    // Only for stores that several replicas share (the embedded file has one writer by design).
    if (!shared) return;
    it('chains appends from two replicas at once into one trail', async () => {
      const { store, sibling } = await open();
      if (!sibling) throw new Error('a shared store fixture must offer a sibling');
      const other = await sibling();
      const written = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 ? other : store).append(varied(i))),
      );
      expect(new Set(written.map((r) => r.id)).size).toBe(200);
      expect(await verifyChain(store.records())).toMatchObject({ verified: 200 });
      expect((await other.list({ limit: 1 })).items[0]?.id).toBe('200');
    });
  });
}
