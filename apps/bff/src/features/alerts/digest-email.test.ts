// A digest's lines write money as every screen does: a balance below zero keeps its minus, and
// thousands are grouped.
import { describe, expect, it } from 'vitest';
import { digestLine } from './digest-email';

const base = { ruleName: 'Daily', subAccount: { id: 'sa', name: 'Ops' } };

describe("a digest's line", () => {
  it('keeps the minus of a balance below zero and groups thousands', () => {
    expect(
      digestLine({
        raisedAt: '2026-11-26T09:30:00.000Z',
        payload: {
          ...base,
          kind: 'balance_below',
          thresholdCents: 100_000,
          balanceCents: -50_000,
          day: '2026-11-26',
        },
      }),
    ).toBe('09:30 UTC: balance -$500.00, under $1,000.00');
    expect(
      digestLine({
        raisedAt: '2026-11-26T10:00:00.000Z',
        payload: {
          ...base,
          kind: 'amount_above',
          thresholdCents: 100_000,
          transaction: {
            id: 't1',
            at: '2026-11-26T09:59:00.000Z',
            amountCents: -123_456,
            status: 'settled',
            description: 'ACME',
          },
        },
      }),
    ).toBe('10:00 UTC: $1,234.56 at ACME (settled)');
  });
});
