// Which emails a raise sends one by one and which it folds, against an engine that answers the
// hour's count as told. The engines' own behaviour (the lock under races, what the count reads)
// is alert-limits.contract.ts's.
import { describe, expect, it } from 'vitest';
import type { PlannedDelivery } from './delivery-plan';
import { capEmails, DEFAULT_EMAILS_PER_HOUR } from './email-cap';

const AT = new Date('2026-11-27T10:00:00.000Z');

function engine(sent: Record<string, number>) {
  const asked: { text: string; params: readonly unknown[] | undefined }[] = [];
  return {
    asked,
    async query<R extends object>(text: string, params?: readonly unknown[]): Promise<R[]> {
      asked.push({ text, params });
      if (!text.includes('count(*)')) return [] as R[];
      return Object.entries(sent).map(([recipient, n]) => ({ recipient, n })) as R[];
    },
  };
}

const email = (recipient: string, n: number): PlannedDelivery => ({
  key: `k${n}|email|${recipient}`,
  alertId: `a${n}`,
  ruleId: 'r',
  channel: 'email',
  recipient,
});
const hook = (n: number): PlannedDelivery => ({
  key: `k${n}|webhook|hook-1`,
  alertId: `a${n}`,
  ruleId: 'r',
  channel: 'webhook',
  recipient: 'hook-1',
});

describe('the emails a raise sends one by one', () => {
  it('sends each recipient’s first emails up to the cap, in order, and folds the rest; webhooks always go', async () => {
    const tx = engine({});
    const states = await capEmails(
      tx,
      [email('bo', 1), email('ana', 2), hook(3), email('ana', 4), email('ana', 5), email('bo', 6)],
      AT,
      2,
    );
    expect(states).toEqual(['pending', 'pending', 'pending', 'pending', 'folded', 'pending']);
  });

  it('counts the recipient’s emails of the hour before, and folds all once they reach the cap', async () => {
    const states = await capEmails(
      engine({ ana: 1, bo: 3 }),
      [email('ana', 1), email('ana', 2), email('bo', 3), email('cy', 4)],
      AT,
      2,
    );
    expect(states).toEqual(['pending', 'folded', 'folded', 'pending']);
  });

  it('locks each recipient once, sorted, then counts the hour before the raise', async () => {
    const tx = engine({});
    await capEmails(tx, [email('cy', 1), email('ana', 2), email('cy', 3), hook(4)], AT, 5);
    expect(tx.asked).toHaveLength(2);
    expect(tx.asked[0]?.text).toContain(
      "pg_advisory_xact_lock(hashtext('card-console alert email'), hashtext(r))",
    );
    expect(tx.asked[0]?.params).toEqual([['ana', 'cy']]);
    expect(tx.asked[1]?.text).toMatch(
      /channel = 'email' AND recipient = ANY\(\$1::text\[\]\) AND created_at > \$2::timestamptz\s+AND state <> 'folded'/,
    );
    expect(tx.asked[1]?.params).toEqual([['ana', 'cy'], '2026-11-27T09:00:00.000Z']);
  });

  it('asks the engine nothing when no email is planned', async () => {
    const tx = engine({});
    expect(await capEmails(tx, [hook(1), hook(2)], AT, 1)).toEqual(['pending', 'pending']);
    expect(await capEmails(tx, [], AT, 1)).toEqual([]);
    expect(tx.asked).toEqual([]);
  });

  it('sends 20 an hour unless configured', () => {
    expect(DEFAULT_EMAILS_PER_HOUR).toBe(20);
  });
});
