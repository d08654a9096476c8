// What the senders are handed for each kind of alert payload: the message, and its link.

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderAlert } from '../../platform/notify/alert-message';
import { deliveryIdSchema } from '../../platform/notify/delivery-id';
import { holdsCardNumber } from '../../platform/security/card-number-ids';
import { alertMessageOf, deliveryIdOf } from './alert-delivery';

const origin = 'https://cards.example.test';

describe('the message of an alert payload', () => {
  it("a card's utilisation links to the card's page, its id encoded, and keeps the window", () => {
    const message = alertMessageOf({
      kind: 'utilisation_above',
      ruleName: 'Cards past 80%',
      subAccount: { id: 'sa 1' },
      card: { id: 'card/7?x', name: 'Ads card', lastFour: '4242' },
      sharePercent: 80,
      limitCents: 100_000,
      spentCents: 90_000,
      window: { fromDay: '2026-11-01', toDay: '2026-11-30', timeZone: 'UTC' },
    });
    expect(message).toEqual({
      ruleName: 'Cards past 80%',
      kind: 'card_utilisation',
      subAccount: { id: 'sa 1', name: 'sa 1' },
      card: { id: 'card/7?x', name: 'Ads card', lastFour: '4242' },
      sharePercent: 80,
      limit: { cents: 100_000, currency: 'USD' },
      spent: { cents: 90_000, currency: 'USD' },
      window: { fromDay: '2026-11-01', toDay: '2026-11-30', timeZone: 'UTC' },
      linkPath: '/cards/card%2F7%3Fx',
    });
    expect(renderAlert(message as NonNullable<typeof message>, origin).text).toContain(
      'Open in Card Console: https://cards.example.test/cards/card%2F7%3Fx',
    );
  });

  it('a card the directory names without its last four is still sent, by its name', () => {
    const message = alertMessageOf({
      kind: 'utilisation_above',
      ruleName: 'Cards past 80%',
      subAccount: { id: 'sa_1', name: 'Ops' },
      card: { id: 'card_7' },
      sharePercent: 80,
      limitCents: 100_000,
      spentCents: 90_000,
      window: { fromDay: '2026-11-01', toDay: '2026-11-30', timeZone: 'UTC' },
    });
    expect(message).toMatchObject({ card: { id: 'card_7', name: 'Card' } });
    expect(message && 'card' in message && message.card).not.toHaveProperty('lastFour');
    expect(renderAlert(message as NonNullable<typeof message>, origin).subject).toContain(
      'spent on Card',
    );
  });

  it("a balance links to the sub account's transactions, its id encoded", () => {
    const message = alertMessageOf({
      kind: 'balance_below',
      ruleName: 'Low balance',
      subAccount: { id: 'sa&1', name: 'Ops' },
      thresholdCents: 50_000,
      balanceCents: -1_200,
      day: '2026-11-27',
    });
    expect(message).toEqual({
      ruleName: 'Low balance',
      kind: 'balance_below',
      subAccount: { id: 'sa&1', name: 'Ops' },
      threshold: { cents: 50_000, currency: 'USD' },
      balance: { cents: -1_200, currency: 'USD' },
      day: '2026-11-27',
      linkPath: '/transactions?subAccountId=sa%261',
    });
  });

  it('a transaction message links to the transaction page', () => {
    expect(
      alertMessageOf({
        kind: 'declined',
        ruleName: 'Declines',
        subAccount: { id: 'sa_1', name: 'Ops' },
        card: { id: 'c1', name: 'Ops card', lastFour: '4242' },
        transaction: {
          id: 't1',
          at: '2026-11-27T05:20:13.000Z',
          amountCents: -12_345,
          status: 'declined',
          description: 'ACME ads',
          merchant: 'ACME',
          declineReason: 'insufficient funds',
        },
      }),
    ).toEqual({
      ruleName: 'Declines',
      kind: 'transaction_declined',
      transactionId: 't1',
      subAccount: { id: 'sa_1', name: 'Ops' },
      card: { name: 'Ops card', lastFour: '4242' },
      merchant: 'ACME',
      description: 'ACME ads',
      amount: { cents: 12_345, currency: 'USD' },
      status: 'declined',
      declineReason: 'insufficient funds',
      occurredAt: '2026-11-27T05:20:13.000Z',
      linkPath: '/transactions/t1',
    });
  });
});

describe('the id a delivery is sent with', () => {
  it('is the alert’s key when the key fits a header', () => {
    expect(deliveryIdOf('r1:t9')).toBe('r1:t9');
  });

  it('is a digest, the same every time, for a key that does not fit (a rule id may hold _ or begin with -)', () => {
    const id = deliveryIdOf('-ZWCkjzSPJMtSq_SAJIBwQ:t1');
    expect(id).toMatch(/^k\.[0-9a-f]{40}$/);
    expect(deliveryIdOf('-ZWCkjzSPJMtSq_SAJIBwQ:t1')).toBe(id);
    expect(deliveryIdOf('-ZWCkjzSPJMtSq_SAJIBwQ:t2')).not.toBe(id);
  });

  it('is always one the senders accept: a digest whose digits read as a card number is written in letters', () => {
    // Keys like a rule's alerts' (a random base64url rule id, then the transaction): about one
    // hex digest in 120 holds a Luhn-valid run of 13-19 digits. A clean clone's delivery test
    // lost 3 of 80 such alerts, for good, before the digest had its letters form.
    const keys = Array.from({ length: 3_000 }, (_, i) => `-rule${i % 37}_${i}:t${i}`);
    const hexOf = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 40);
    const readAsCards = keys.filter((key) => holdsCardNumber(hexOf(key)));
    expect(readAsCards.length).toBeGreaterThan(5);
    for (const key of keys)
      expect(deliveryIdSchema.safeParse(deliveryIdOf(key)).success).toBe(true);
    for (const key of readAsCards) {
      expect(deliveryIdOf(key)).toMatch(/^k\.[a-p]{40}$/);
      expect(deliveryIdOf(key)).not.toBe(deliveryIdOf(`${key}x`));
    }
  });
});
