// The index's merchants: its texts grouped at most once a minute, again sooner once a sync has
// written (at most every 5 s) or when asked for a fresher grouping, and an admin's names
// applied at every use.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/harness';
import { MERCHANT_GROUPS_MIN_MS, MERCHANT_GROUPS_MS, merchantGroupsOf } from './merchant-groups';
import type { MerchantNameRow } from './merchant-names-store';

function setUp() {
  const clock = new ManualClock(Date.UTC(2026, 11, 2, 9));
  let texts = [{ text: 'SQ *ACME FUEL SEATTLE WA', rows: 2 }];
  let names: MerchantNameRow[] = [];
  let groupings = 0;
  const merchants = merchantGroupsOf({
    clock,
    texts: async () => {
      groupings += 1;
      return texts;
    },
    names: async () => names,
  });
  return {
    clock,
    merchants,
    groupings: () => groupings,
    setTexts: (next: typeof texts) => {
      texts = next;
    },
    setNames: (next: MerchantNameRow[]) => {
      names = next;
    },
  };
}

describe('the index merchants', () => {
  it('groups the texts once a minute, sooner once a sync here has written, never more than every 5 s', async () => {
    const s = setUp();
    expect((await s.merchants.current()).textsOf('acme fuel').map((t) => t.text)).toEqual([
      'SQ *ACME FUEL SEATTLE WA',
    ]);
    s.setTexts([
      { text: 'SQ *ACME FUEL SEATTLE WA', rows: 2 },
      { text: 'ACME FUEL #12 DENVER CO', rows: 3 },
    ]);
    s.clock.advance(MERCHANT_GROUPS_MIN_MS);
    await s.merchants.current();
    expect(s.groupings()).toBe(1);
    // A sync wrote: the next ask 5 s after the grouping groups again.
    s.merchants.written();
    s.clock.advance(1_000);
    const again = await s.merchants.current();
    expect(s.groupings()).toBe(2);
    expect(again.textsOf('acme fuel').map((t) => t.text)).toEqual([
      'ACME FUEL #12 DENVER CO',
      'SQ *ACME FUEL SEATTLE WA',
    ]);
    expect(again.hasText('ACME FUEL #12 DENVER CO')).toBe(true);
    // Written again at once: not before 5 s have passed since that grouping.
    s.merchants.written();
    s.clock.advance(MERCHANT_GROUPS_MIN_MS - 1);
    await s.merchants.current();
    expect(s.groupings()).toBe(2);
    s.clock.advance(1);
    await s.merchants.current();
    expect(s.groupings()).toBe(3);
    // Nothing written: a minute.
    s.clock.advance(MERCHANT_GROUPS_MS - 1);
    await s.merchants.current();
    expect(s.groupings()).toBe(3);
    await s.merchants.current(MERCHANT_GROUPS_MIN_MS);
    expect(s.groupings()).toBe(4);
  });

  it("applies an admin's names at every use: a renamed group, and two made one", async () => {
    const s = setUp();
    s.setTexts([
      { text: 'SQ *ACME FUEL SEATTLE WA', rows: 2 },
      { text: 'ACME FUEL DEPOT SEATTLE WA', rows: 1 },
    ]);
    const before = await s.merchants.current();
    expect(before.nameOf('ACME FUEL DEPOT SEATTLE WA')).toEqual({
      key: 'acme fuel depot',
      name: 'Acme Fuel Depot',
    });
    expect(before.severalWays().size).toBe(0);
    s.setNames([
      {
        merchantKey: 'acme fuel depot',
        name: 'Acme Fuel',
        nameKey: 'acme fuel',
        updatedBy: 'admin@x.test',
        updatedAt: '2026-12-02T09:00:00.000Z',
      },
    ]);
    const after = await s.merchants.current();
    expect(s.groupings()).toBe(1);
    expect(after.nameOf('ACME FUEL DEPOT SEATTLE WA')).toEqual({
      key: 'acme fuel',
      name: 'Acme Fuel',
    });
    expect(after.textsOf('acme fuel').map((t) => t.text)).toEqual([
      'SQ *ACME FUEL SEATTLE WA',
      'ACME FUEL DEPOT SEATTLE WA',
    ]);
    expect(after.textsOf('acme fuel depot')).toEqual([]);
    expect(after.namedOf('acme fuel')).toEqual({
      by: 'admin@x.test',
      at: '2026-12-02T09:00:00.000Z',
      groups: 1,
    });
    expect([...after.severalWays()].sort()).toEqual([
      ['ACME FUEL DEPOT SEATTLE WA', 'acme fuel'],
      ['SQ *ACME FUEL SEATTLE WA', 'acme fuel'],
    ]);
    // A text the index does not hold yet goes by the name of the group it would join.
    expect(after.nameOf('ACME FUEL DEPOT #3 SEATTLE WA').name).toBe('Acme Fuel');
  });
});
