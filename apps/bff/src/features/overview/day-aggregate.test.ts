import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import { describe, expect, it } from 'vitest';
import { addTransaction, emptyDay } from './day-aggregate';

const row = (over: Partial<UpstreamTransaction>): UpstreamTransaction =>
  ({
    id: 't1',
    date: '2026-01-02T10:00:00Z',
    description: 'x',
    amountCents: -500,
    status: 'declined',
    referenceNumber: 'r',
    createdAt: '2026-01-02T10:00:00Z',
    ...over,
  }) as UpstreamTransaction;

describe('addTransaction', () => {
  it('counts declines over card transactions only, so the rate is never above 1', () => {
    const day = emptyDay('2026-01-02');
    addTransaction(day, row({ declineReason: 'no card' }));
    addTransaction(day, row({ id: 't2', cardId: 'c1', declineReason: 'Exceeds limit' }));
    expect(day.cardCount).toBe(1);
    expect(day.declines).toBe(1);
    expect({ ...day.declineReasons }).toEqual({ 'Exceeds limit': 1 });
  });
});
