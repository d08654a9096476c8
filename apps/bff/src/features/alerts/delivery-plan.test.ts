import { describe, expect, it } from 'vitest';
import { deliveriesOf, digestKey, type RaisedForDelivery } from './delivery-plan';

const alert = (over: Partial<RaisedForDelivery> = {}): RaisedForDelivery => ({
  id: 'a1',
  ruleId: 'r1',
  idempotencyKey: 'r1:t1',
  payload: { kind: 'declined' },
  ownerEmail: 'ana@example.test',
  channels: { email: true, webhookTargetId: 'wh1' },
  digest: false,
  ...over,
});
const team = ['ana@example.test', 'bo@example.test', 'bo@example.test'];

describe('the deliveries an alert makes', () => {
  it('an own rule: one email to its owner and one post to its target, keyed by alert, channel and recipient', () => {
    expect(deliveriesOf(alert(), team)).toEqual([
      {
        key: 'r1:t1|email|ana@example.test',
        alertId: 'a1',
        ruleId: 'r1',
        channel: 'email',
        recipient: 'ana@example.test',
      },
      {
        key: 'r1:t1|webhook|wh1',
        alertId: 'a1',
        ruleId: 'r1',
        channel: 'webhook',
        recipient: 'wh1',
      },
    ]);
  });

  it('a team rule: one email per team recipient (each once)', () => {
    const keys = deliveriesOf(
      alert({ ownerEmail: null, channels: { email: true, webhookTargetId: null } }),
      team,
    ).map((d) => d.key);
    expect(keys).toEqual(['r1:t1|email|ana@example.test', 'r1:t1|email|bo@example.test']);
  });

  it('a digest rule is not emailed per alert; a rule without email or webhook makes nothing', () => {
    expect(deliveriesOf(alert({ digest: true }), team).map((d) => d.channel)).toEqual(['webhook']);
    expect(
      deliveriesOf(alert({ channels: { email: false, webhookTargetId: null } }), team),
    ).toEqual([]);
  });

  it('every kind is sent at once: a card utilisation and a balance too, keyed by their own alert keys', () => {
    for (const [kind, key] of [
      ['utilisation_above', 'r1:card_1:2026-11-01'],
      ['balance_below', 'r1:sa_1:2026-11-27'],
      ['amount_above', 'r1:t2'],
      ['new_category', 'r1:t3'],
    ] as const) {
      expect(
        deliveriesOf(alert({ payload: { kind }, idempotencyKey: key }), team).map((d) => d.key),
      ).toEqual([`${key}|email|ana@example.test`, `${key}|webhook|wh1`]);
    }
  });

  it('a digest rule about a balance posts its webhook at once and leaves the email to the digest', () => {
    const team = ['ana@example.test', 'bo@example.test'];
    const planned = deliveriesOf(
      alert({ payload: { kind: 'balance_below' }, digest: true, ownerEmail: null }),
      team,
    );
    expect(planned.map((d) => `${d.channel}:${d.recipient}`)).toEqual(['webhook:wh1']);
  });

  it('a digest is one per rule, day and recipient', () => {
    expect(digestKey('r1', '2026-11-26', 'ana@example.test')).toBe(
      'digest:r1:2026-11-26|digest|ana@example.test',
    );
  });
});
