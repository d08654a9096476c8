import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { unreachablePostgres, useBothEngines } from '../../test/engines/sql-replicas';
import { StoreUnavailableError } from '../store-unavailable';
import {
  SqlUsedCodeLedger,
  USED_CODE_REMEMBER_SECONDS,
  USED_CODE_SWEEP_BATCH,
} from './sql-used-code-ledger';
import { usedCodeLedgerContract } from './used-code-ledger.contract';

const both = useBothEngines();

// Two pools on one database: two replicas.
usedCodeLedgerContract('SqlUsedCodeLedger on PostgreSQL', async () => ({
  a: new SqlUsedCodeLedger(both.postgres.a),
  b: new SqlUsedCodeLedger(both.postgres.b),
}));

// One process: both views share its one embedded engine.
usedCodeLedgerContract('SqlUsedCodeLedger on the embedded engine', async () => ({
  a: new SqlUsedCodeLedger(both.embedded),
  b: new SqlUsedCodeLedger(both.embedded),
}));

const engines = [
  { name: 'PostgreSQL', replicas: () => both.postgres },
  {
    name: 'the embedded engine',
    replicas: () => ({ a: both.embedded, b: both.embedded, owner: both.embedded }),
  },
];

describe.each(engines)('SqlUsedCodeLedger on $name', ({ replicas }) => {
  it('keeps the last step under the hash of the email for a few minutes, not forever', async () => {
    const { a, owner } = replicas();
    await new SqlUsedCodeLedger(a).claim('ada@example.test', 1234.9);
    const rows = await owner.query<{ time_step: string; seconds: number }>(
      `SELECT time_step, extract(epoch FROM expires_at - now()) AS seconds
       FROM used_totp_step WHERE email_hash = $1`,
      [sha256('ada@example.test')],
    );
    expect(rows.map((row) => Number(row.time_step))).toEqual([1234]);
    expect(Number(rows[0]?.seconds)).toBeGreaterThan(USED_CODE_REMEMBER_SECONDS - 10);
    expect(Number(rows[0]?.seconds)).toBeLessThanOrEqual(USED_CODE_REMEMBER_SECONDS);
    expect(USED_CODE_REMEMBER_SECONDS).toBeGreaterThan(60);
  });

  it('a step remembered past its time counts as never claimed, as an expired Redis key did', async () => {
    const { a, b, owner } = replicas();
    const ledger = new SqlUsedCodeLedger(a);
    expect(await ledger.claim('forgotten@example.test', 5000)).toBe(true);
    await owner.query(
      `UPDATE used_totp_step SET expires_at = now() - interval '1 millisecond' WHERE email_hash = $1`,
      [sha256('forgotten@example.test')],
    );
    expect(await new SqlUsedCodeLedger(b).claim('forgotten@example.test', 4999)).toBe(true);
    expect(await ledger.claim('forgotten@example.test', 4999)).toBe(false);
  });

  it('each claim deletes up to its batch of expired rows, never a live one, so they cannot pile up', async () => {
    const { a, b, owner } = replicas();
    await owner.query(
      `INSERT INTO used_totp_step
       SELECT encode(sha256(('gone-' || i)::bytea), 'hex'), i, now() - interval '1 hour'
       FROM generate_series(1, $1::int) AS i`,
      [USED_CODE_SWEEP_BATCH * 2 + 5],
    );
    const count = async () => {
      const [row] = await owner.query<{ expired: string; live: string }>(
        `SELECT count(*) FILTER (WHERE expires_at <= now()) AS expired,
                count(*) FILTER (WHERE expires_at > now()) AS live FROM used_totp_step`,
      );
      return { expired: Number(row?.expired), live: Number(row?.live) };
    };
    const before = await count();
    expect(await new SqlUsedCodeLedger(a).claim('sweeper-1@example.test', 1)).toBe(true);
    expect(await count()).toEqual({
      expired: before.expired - USED_CODE_SWEEP_BATCH,
      live: before.live + 1,
    });
    for (let i = 2; (await count()).expired > 0 && i <= before.expired; i++) {
      await new SqlUsedCodeLedger(i % 2 ? a : b).claim(`sweeper-${i}@example.test`, 1);
    }
    expect((await count()).expired).toBe(0);
    expect(await new SqlUsedCodeLedger(b).claim('sweeper-1@example.test', 1)).toBe(false);
  });

  it('keeps people of any email apart, and takes the email as data, never as SQL', async () => {
    const { a, b } = replicas();
    const long = `${'p'.repeat(20_000)}@example.test`;
    const emails = [long, `x${long}`, "'); DELETE FROM used_totp_step; --", 'nul\u0000@x', '🔑@x'];
    for (const email of emails) expect(await new SqlUsedCodeLedger(a).claim(email, 7)).toBe(true);
    for (const email of emails) expect(await new SqlUsedCodeLedger(b).claim(email, 7)).toBe(false);
  });
});

describe('SqlUsedCodeLedger on PostgreSQL, replicas at once', () => {
  it('20 people each using one code six times at once across both replicas: exactly one use each wins', async () => {
    const [a, b] = [new SqlUsedCodeLedger(both.postgres.a), new SqlUsedCodeLedger(both.postgres.b)];
    const people = Array.from({ length: 20 }, (_, i) => `raced-${i}@example.test`);
    const results = await Promise.all(
      people.map(async (email) => {
        const claims = await Promise.all(
          Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).claim(email, 56_666_666)),
        );
        return claims.filter(Boolean).length;
      }),
    );
    expect(results).toEqual(people.map(() => 1));
  });

  it('without the server a claim fails with StoreUnavailableError, never as "accepted"', async () => {
    const engine = await unreachablePostgres();
    try {
      await expect(
        new SqlUsedCodeLedger(engine).claim('ada@example.test', 1),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await engine.close();
    }
  });
});

function sha256(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
