import {
  transactionStatuses,
  upstreamTransactionSchema,
} from '@card-console/shared/upstream/transaction';
import { describe, expect, it } from 'vitest';
import { buildDataset } from './dataset';
import { Kind } from './generate-transactions';

const contractKeys = new Set(Object.keys(upstreamTransactionSchema.shape));

describe('TransactionStore.json', () => {
  const { transactions: store } = buildDataset({
    seed: 11,
    subAccounts: 3,
    cards: 40,
    transactions: 2_000,
    months: 12,
    nowMs: Date.UTC(2026, 10, 1),
  });
  const c = store.cols;

  it('writes every row as JSON the contract accepts, with the values of its columns', () => {
    const seen = { card: 0, other: 0, foreign: 0, declined: 0 };
    for (let row = 0; row < c.count; row++) {
      const text = store.json(row);
      const tx = JSON.parse(text) as Record<string, unknown>;
      expect(upstreamTransactionSchema.safeParse(tx).success).toBe(true);
      for (const key of Object.keys(tx)) expect(contractKeys.has(key)).toBe(true);

      const date = c.date[row] ?? 0;
      const status = transactionStatuses[c.status[row] ?? 0];
      expect(tx.id).toBe(`txn_${row.toString(36).padStart(7, '0')}`);
      expect(tx.date).toBe(new Date(date).toISOString());
      expect(tx.amountCents).toBe(c.amount[row]);
      expect(tx.status).toBe(status);
      expect(tx.referenceNumber).toMatch(new RegExp(`^74\\d{9}${String(row).padStart(12, '0')}$`));
      if (c.kind[row] === Kind.card) {
        seen.card++;
        const authorizedAt = new Date(date - (c.authDelta[row] ?? 0)).toISOString();
        expect(tx.authorizedAt).toBe(authorizedAt);
        expect(tx.createdAt).toBe(authorizedAt);
        expect(tx.cardId).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(tx.merchantData).toEqual({
          description: expect.any(String),
          categoryCode: expect.stringMatching(/^\d{4}$/),
        });
      } else {
        seen.other++;
        expect(tx.createdAt).toBe(tx.date);
        expect(tx).not.toHaveProperty('cardId');
        expect(tx).not.toHaveProperty('merchantData');
      }
      if ((c.fx[row] ?? 0) > 0) {
        seen.foreign++;
        expect(tx.originalCurrency).toEqual({
          code: expect.stringMatching(/^[A-Z]{3}$/),
          amountCents: expect.any(Number),
          conversionRate: expect.any(Number),
        });
      } else expect(tx).not.toHaveProperty('originalCurrency');
      if (status === 'declined') seen.declined++;
      expect(typeof tx.declineReason === 'string').toBe(status === 'declined');
      // One line, the same text each time it is asked for.
      expect(text).not.toContain('\n');
      expect(store.json(row)).toBe(text);
    }
    // The data covers every shape the writer has.
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(0);
  });

  it('writes the JSON that JSON.stringify would, keys in the contract order', () => {
    const order = [
      'id',
      'subAccountId',
      'date',
      'createdAt',
      'description',
      'amountCents',
      'status',
      'referenceNumber',
      'authorizedAt',
      'cardId',
      'merchantData',
      'originalCurrency',
      'declineReason',
    ];
    for (let row = 0; row < c.count; row++) {
      const text = store.json(row);
      const parsed = JSON.parse(text) as Record<string, unknown>;
      expect(JSON.stringify(parsed)).toBe(text);
      const keys = Object.keys(parsed);
      expect(keys).toEqual(order.filter((key) => keys.includes(key)));
    }
  });
});
