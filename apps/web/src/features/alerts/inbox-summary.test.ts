// The bell's line for an alert: the figures it shows agree with the rule that raised it.
import type { InboxItem } from '@card-console/shared/api/alerts';
import { describe, expect, it } from 'vitest';
import { inboxSummary } from './inbox-summary';

const utilisation = (spentCents: number, limitCents: number): InboxItem => ({
  kind: 'utilisation_above',
  id: 'al_1',
  ruleId: 'rule_1',
  ruleName: 'Near the limit',
  raisedAt: '2026-03-15T15:00:00Z',
  readAt: null,
  subAccountId: 'sa_ops',
  cardId: 'card_1',
  cardName: 'Travel',
  last4: '4242',
  sharePercent: 57,
  limitCents,
  spentCents,
  windowStart: '2026-03-01',
  windowEnd: '2026-03-31',
  timeZone: 'UTC',
});

describe('the bell on a card near its limit', () => {
  it('shows the whole percent in integer maths, where floating point is a point under', () => {
    // (57000 / 100000) * 100 is 56.99999999999999 in floating point, and so are these.
    for (const [spent, limit, share] of [
      [57_000, 100_000, 57],
      [29, 100, 29],
      [58, 100, 58],
      [5_700_000, 10_000_000, 57],
      [113, 100, 113],
      [56_999, 100_000, 56],
    ] as const) {
      expect(inboxSummary(utilisation(spent, limit)), `${spent} of ${limit}`).toContain(
        `at ${share}% of its limit`,
      );
    }
  });
});
