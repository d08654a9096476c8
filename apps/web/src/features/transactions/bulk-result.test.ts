import { describe, expect, it } from 'vitest';
import { transactionNotes } from '../../test/fixtures';
import { bulkResultText } from './bulk-result';

const changed = (n: number) =>
  Array.from({ length: n }, (_, i) => transactionNotes({ transactionId: `tx_${i}` }));

describe('what a change of a selection says', () => {
  it('counts what changed', () => {
    expect(bulkResultText({ changed: changed(12), skipped: [] })).toBe('12 changed.');
    expect(bulkResultText({ changed: changed(1_200), skipped: [] })).toBe('1,200 changed.');
  });

  it('with skips of one reason, names the reason and what to do', () => {
    expect(
      bulkResultText({
        changed: changed(12),
        skipped: [
          { transactionId: 'a', reason: 'reviewed' },
          { transactionId: 'b', reason: 'reviewed' },
        ],
      }),
    ).toBe('12 changed, 2 skipped: reviewed — reopen them first.');
  });

  it('with skips of several reasons, counts each', () => {
    expect(
      bulkResultText({
        changed: [],
        skipped: [
          { transactionId: 'a', reason: 'reviewed' },
          { transactionId: 'b', reason: 'too_many_tags' },
          { transactionId: 'c', reason: 'reviewed' },
          { transactionId: 'd', reason: 'not_found' },
        ],
      }),
    ).toBe(
      '0 changed, 4 skipped: 2 reviewed — reopen them first; 1 would have more than 20 tags; 1 no longer in the list — refresh it.',
    );
  });
});
