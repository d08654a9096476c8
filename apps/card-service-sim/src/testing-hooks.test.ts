import { describe, expect, it } from 'vitest';
import { type LooseJson, useService } from './test-support/harness';

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
