// Overview lines that would open no list of their own are not lines: a merchant category code
// not of four digits (the contract allows any string: 'abc') opened a list that code could not
// ask for, every row of the period, while its rows are counted in the "No merchant category"
// group; a blank merchant text opened the same. Each is left out.
import { describe, expect, it } from 'vitest';
import type { OverviewTallies } from '../transaction-index';
import { byMerchant, topCodes } from './overview-service';

const line = (key: string | null, cents: number, count: number) => ({
  subAccountId: 'sa',
  bucket: 0,
  key,
  cents,
  count,
});

describe("the Overview's top merchant category codes", () => {
  it('are four-digit codes, each summed over its lines, largest first', () => {
    const tallies: OverviewTallies = {
      totals: [],
      money: [],
      declineReasons: [],
      categories: [
        line('5812', 1_000, 2),
        line('abc', 9_000, 3),
        line('57', 8_000, 1),
        line(null, 7_000, 4),
        line('5734', 2_500, 1),
        line('5812', 2_000, 1),
      ],
      merchants: [],
      cards: [],
    };
    expect(topCodes(tallies).map((c) => [c.key, c.spentCents, c.count])).toEqual([
      ['5812', 3_000, 3],
      ['5734', 2_500, 1],
    ]);
  });
});

describe("the Overview's top merchants", () => {
  it('leave out a blank merchant text: it names no merchant, and its line could open no list', () => {
    const names = new Map([['FIGMA', { key: 'figma', name: 'Figma' }]]);
    const lines = byMerchant({ FIGMA: [1_000, 1], '': [5_000, 2], '   ': [4_000, 1] }, names);
    expect(lines.map((m) => [m.key, m.spentCents, m.count])).toEqual([['Figma', 1_000, 1]]);
  });
});
