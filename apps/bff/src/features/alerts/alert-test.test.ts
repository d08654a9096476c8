// A test alert's example, for each kind of rule, and how the senders write it: marked a test
// in the subject, the first line of its body and the webhook's `alert`, linking to the rules.
import { describe, expect, it } from 'vitest';
import { renderAlert, safeAlert, TEST_NOTE } from '../../platform/notify/alert-message';
import { alertMessageOf } from './alert-delivery';
import type { AlertRule } from './alert-rules';
import { testAlertKey, testAlertPayload } from './alert-test';

const at = new Date('2026-12-01T14:05:00Z');
const origin = 'https://cards.example.test';
const common = {
  id: 'rule_1',
  name: 'Travel declines',
  channels: { inbox: true, email: true, webhookTargetId: null },
  digest: false,
  enabled: true,
  ownerEmail: 'finance@example.test',
  createdBy: 'finance@example.test',
  createdAt: at.toISOString(),
  updatedBy: 'finance@example.test',
  updatedAt: at.toISOString(),
  version: 1,
};
const rule = (extra: object) => ({ ...common, ...extra }) as AlertRule;

describe('a test alert’s example', () => {
  it('is what the rule would send, from its kind, amount or share, sub account and card', () => {
    expect(testAlertPayload(rule({ kind: 'declined' }), at)).toMatchObject({
      test: true,
      kind: 'declined',
      ruleName: 'Travel declines',
      subAccount: { id: 'example', name: 'Example sub account' },
      card: { id: 'example', name: 'Example card' },
      transaction: { status: 'declined', amountCents: 4_250, at: at.toISOString() },
    });
    // A dollar over the rule's amount, on the rule's own sub account and card.
    expect(
      testAlertPayload(
        rule({ kind: 'amount_above', amountCents: 50_000, subAccountId: 'sa_2', cardId: 'c_9' }),
        at,
      ),
    ).toMatchObject({
      kind: 'amount_above',
      thresholdCents: 50_000,
      subAccount: { id: 'sa_2' },
      card: { id: 'c_9' },
      transaction: { amountCents: 50_100, status: 'settled' },
    });
    expect(
      testAlertPayload(rule({ kind: 'utilisation_above', sharePercent: 85 }), at),
    ).toMatchObject({
      kind: 'utilisation_above',
      sharePercent: 85,
      limitCents: 100_000,
      spentCents: 85_000,
      window: { fromDay: '2026-12-01', toDay: '2026-12-01', timeZone: 'UTC' },
    });
    const balance = testAlertPayload(rule({ kind: 'balance_below', amountCents: 20_000 }), at);
    expect(balance).toMatchObject({
      thresholdCents: 20_000,
      balanceCents: 19_900,
      day: '2026-12-01',
    });
    expect(balance).not.toHaveProperty('card');
  });

  it('has a key no alert of a transaction, card or balance can have', () => {
    expect(testAlertKey('rule_1', 'abc')).toBe('test:rule_1:abc');
  });
});

describe('a test alert as the senders write it', () => {
  it('says it is a test in the subject, first in the body and in the webhook’s alert, and links to the rules', () => {
    for (const extra of [
      { kind: 'declined' },
      { kind: 'new_category' },
      { kind: 'amount_above', amountCents: 10_000 },
      { kind: 'utilisation_above', sharePercent: 80 },
      { kind: 'balance_below', amountCents: 10_000 },
    ]) {
      const message = alertMessageOf(testAlertPayload(rule(extra), at));
      if (!message) throw new Error(`no message for ${extra.kind}`);
      expect(message).toMatchObject({ test: true, linkPath: '/alerts' });
      expect(safeAlert(message).test).toBe(true);
      const rendered = renderAlert(message, origin);
      expect(rendered.subject).toMatch(/^\[Card Console\] Test: /);
      expect(rendered.text.split('\n')[0]).toMatch(/^Test: /);
      expect(rendered.text).toContain(`Test: ${TEST_NOTE}`);
      expect(rendered.text).toContain('Open in Card Console: https://cards.example.test/alerts');
      expect(rendered.chatText).toMatch(/^Test: /);
    }
  });

  it('an alert that is no test says nothing of one', () => {
    const payload = testAlertPayload(rule({ kind: 'declined' }), at);
    delete payload.test;
    const message = alertMessageOf(payload);
    if (!message) throw new Error('no message');
    expect(message).not.toHaveProperty('test');
    expect(renderAlert(message, origin).subject).toMatch(/^\[Card Console\] Declined transaction/);
  });
});
