import { describe, expect, it } from 'vitest';
import {
  candidateWindow,
  type MatchCandidate,
  merchantSimilarity,
  nameWords,
  rankCandidates,
} from './receipt-matching';

const candidate = (id: string, over: Partial<MatchCandidate> = {}): MatchCandidate => ({
  subAccountId: 'sa',
  id,
  at: '2026-11-20T15:00:00.000Z',
  description: 'SQ *HARBOR CAFE SAN FRANCISCO CA',
  merchant: 'Harbor Cafe',
  categoryCode: '5812',
  amountCents: -1_288,
  hasReceipt: false,
  ...over,
});
const read = { totalCents: 1_288, date: '2026-11-19', merchant: 'Harbor Café & Bar' };

describe('merchant names', () => {
  it('drops a processor prefix, accents, filler and numbers', () => {
    expect(nameWords('SQ *HARBOR CAFE #112')).toEqual(['harbor', 'cafe']);
    expect(nameWords('The Golden Bistro, Inc.')).toEqual(['golden', 'bistro']);
    expect(nameWords('PAYPAL *CEDAR CLOUD')).toEqual(['cedar', 'cloud']);
  });

  it('takes a shop’s own name for its descriptor, and a misread letter', () => {
    // Two of the receipt's three words are in the descriptor (its city is not a shop's word).
    expect(merchantSimilarity('Harbor Café & Bar', 'SQ *HARBOR CAFE SAN FRANCISCO CA')).toBeCloseTo(
      2 / 3,
    );
    expect(merchantSimilarity('Harbor Café & Bar', 'Harbor Cafe')).toBe(1);
    expect(merchantSimilarity('HARB0R CAFE', 'Harbor Cafe')).toBe(1);
    expect(merchantSimilarity('Cedar Cloud, Inc.', 'PAYPAL *CEDAR CLOUD')).toBe(1);
    expect(merchantSimilarity('Golden Bistro', 'Harbor Cafe')).toBe(0);
    expect(merchantSimilarity('', 'Harbor Cafe')).toBe(0);
  });
});

describe('the candidates’ window', () => {
  it('spans a tip either way, a day before the receipt to the posting lag after', () => {
    expect(candidateWindow(read, Date.UTC(2026, 10, 25))).toEqual({
      lowCents: 991,
      highCents: 1_674,
      fromAt: '2026-11-18T00:00:00.000Z',
      toAt: '2026-11-25T00:00:00.000Z',
    });
  });

  it('looks back 90 days without a date, and nowhere without a total', () => {
    const now = Date.UTC(2026, 10, 25);
    expect(candidateWindow({ totalCents: 500 }, now)?.fromAt).toBe('2026-08-27T00:00:00.000Z');
    expect(candidateWindow({ date: '2026-11-19', merchant: 'Harbor' }, now)).toBeUndefined();
  });
});

describe('ranking', () => {
  it('attaches for certain: exact amount, date, merchant, no receipt, nobody close', () => {
    const result = rankCandidates(read, [
      candidate('right'),
      candidate('other', {
        description: 'TST* GOLDEN BISTRO',
        merchant: 'Golden Bistro',
        amountCents: -1_350,
      }),
    ]);
    expect(result.automatic).toMatchObject({
      transactionId: 'right',
      reasons: ['amount', 'date_near', 'merchant', 'no_receipt'],
    });
  });

  it('only suggests when two transactions have the amount and merchant', () => {
    const result = rankCandidates(read, [
      candidate('a'),
      candidate('b', { at: '2026-11-21T09:00:00.000Z' }),
    ]);
    expect(result.automatic).toBeUndefined();
    expect(result.suggestions.map((s) => s.transactionId)).toEqual(['a', 'b']);
  });

  it('only suggests a transaction that has a receipt, or whose merchant differs', () => {
    expect(rankCandidates(read, [candidate('a', { hasReceipt: true })]).automatic).toBeUndefined();
    const other = rankCandidates(read, [
      candidate('a', { description: 'ACME SUPPLY', merchant: 'Acme Supply' }),
    ]);
    expect(other.automatic).toBeUndefined();
    expect(other.suggestions[0]?.reasons).toEqual(['amount', 'date_near', 'no_receipt']);
  });

  it('takes a tip at a restaurant, never elsewhere', () => {
    const tipped = candidate('tipped', { amountCents: -1_520 });
    const result = rankCandidates(read, [tipped]);
    expect(result.automatic).toBeUndefined();
    expect(result.suggestions[0]).toMatchObject({
      transactionId: 'tipped',
      reasons: ['amount_with_tip', 'date_near', 'merchant', 'no_receipt'],
    });
    expect(rankCandidates(read, [{ ...tipped, categoryCode: '5943' }]).suggestions).toEqual([]);
    // Past the margin: not a tip.
    expect(rankCandidates(read, [candidate('x', { amountCents: -1_700 })]).suggestions).toEqual([]);
  });

  it('leaves out postings before the day before the receipt or past the lag', () => {
    expect(
      rankCandidates(read, [
        candidate('early', { at: '2026-11-17T23:00:00.000Z' }),
        candidate('late', { at: '2026-11-25T01:00:00.000Z' }),
      ]).suggestions,
    ).toEqual([]);
  });

  it('never attaches without a date read', () => {
    const result = rankCandidates({ totalCents: 1_288, merchant: 'Harbor Cafe' }, [candidate('a')]);
    expect(result.automatic).toBeUndefined();
    expect(result.suggestions.map((s) => s.transactionId)).toEqual(['a']);
  });
});
