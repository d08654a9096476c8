// The roll of replicas alive, which divide the card service's published rate limit among
// themselves: on PostgreSQL (two replicas' pools, each logged in as the writer role only) and on
// the embedded engine (one process, the same SQL), and the loop that keeps a pace told of it.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../test/audit-cluster';
import { unreachablePostgres, useBothEngines } from '../../test/engines/sql-replicas';
import type { SqlEngine } from '../sql/sql-engine';
import { type ReplicaRoll, SqlReplicaRoll, shareThePublishedLimit } from './replica-roll';

const both = useBothEngines();

const engines = [
  { name: 'PostgreSQL', replicas: () => both.postgres },
  {
    name: 'the embedded engine',
    replicas: () => ({ a: both.embedded, b: both.embedded, owner: both.embedded }),
  },
];

describe.each(engines)('SqlReplicaRoll on $name', ({ replicas }) => {
  /** Two replicas' rolls over an emptied table (each test counts the whole roll). */
  async function rolls() {
    const { a, b, owner } = replicas();
    await owner.query('DELETE FROM replica_lease');
    return { one: new SqlReplicaRoll(a), two: new SqlReplicaRoll(b), owner };
  }

  it('counts each replica alive once, however often it beats, itself included', async () => {
    const { one, two } = await rolls();
    const [first, second] = [randomUUID(), randomUUID()];
    expect(await one.beat(first, 10_000)).toBe(1);
    expect(await one.beat(first, 10_000)).toBe(1);
    expect(await two.beat(second, 10_000)).toBe(2);
    expect(await one.beat(first, 10_000)).toBe(2);
    expect(await two.beat(second, 10_000)).toBe(2);
  });

  it('no longer counts a replica that left, nor one whose lease lapsed, and drops the lapsed row', async () => {
    const { one, two, owner } = await rolls();
    const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
    await one.beat(first, 10_000);
    await two.beat(second, 10_000);
    expect(await one.beat(third, 2_000)).toBe(3);
    await two.leave(second);
    expect(await one.beat(first, 10_000)).toBe(2);
    // The third stopped beating (it died): counted until its lease lapses, then not.
    await sleep(2_100);
    expect(await one.beat(first, 10_000)).toBe(1);
    const left = await owner.query<{ id: string }>('SELECT id::text FROM replica_lease');
    expect(left.map((row) => row.id)).toEqual([first]);
  });
});

/** A pace that only remembers what it was told. */
function toldPace() {
  const told: number[] = [];
  return { told, pace: { share: (n: number) => void told.push(n) } };
}

describe('shareThePublishedLimit', () => {
  it('tells the pace how many replicas are alive at once and at each beat, and leaves when stopped', async () => {
    const { a, b, owner } = both.postgres;
    await owner.query('DELETE FROM replica_lease');
    const first = toldPace();
    const second = toldPace();
    const sharing = (engine: SqlEngine, pace: ReturnType<typeof toldPace>['pace']) =>
      shareThePublishedLimit({
        roll: new SqlReplicaRoll(engine),
        pace,
        logger: silentLogger,
        leaseMs: 600,
      });
    const one = sharing(a, first.pace);
    await one.ready;
    // Each beat tells the pace again (one may have come since).
    expect(new Set(first.told)).toEqual(new Set([1]));
    const two = sharing(b, second.pace);
    await two.ready;
    expect(new Set(second.told)).toEqual(new Set([2]));
    // The first hears of the second at its next beat (a third of the lease).
    await expect.poll(() => first.told.at(-1), { timeout: 3_000 }).toBe(2);
    await two.stop();
    await expect.poll(() => first.told.at(-1), { timeout: 3_000 }).toBe(1);
    await one.stop();
    expect(await owner.query('SELECT id FROM replica_lease')).toEqual([]);
  });

  it('keeps the last count while the roll cannot be reached, and takes the next it can read', async () => {
    const { a, owner } = both.postgres;
    await owner.query('DELETE FROM replica_lease');
    const reachable = new SqlReplicaRoll(a);
    const down = new SqlReplicaRoll(await unreachablePostgres());
    let roll: ReplicaRoll = reachable;
    const other = randomUUID();
    await reachable.beat(other, 60_000);
    const { told, pace } = toldPace();
    const sharing = shareThePublishedLimit({
      roll: { beat: (id, ms) => roll.beat(id, ms), leave: (id) => roll.leave(id) },
      pace,
      logger: silentLogger,
      leaseMs: 300,
    });
    await sharing.ready;
    expect(new Set(told)).toEqual(new Set([2]));
    roll = down;
    const toldBefore = told.length;
    await sleep(400);
    // Not told anything while down: the walks keep to half of the walks' share.
    expect(told.slice(toldBefore).filter((n) => n !== 2)).toEqual([]);
    await reachable.leave(other);
    roll = reachable;
    await expect.poll(() => told.at(-1), { timeout: 3_000 }).toBe(1);
    await sharing.stop();
  });
});
