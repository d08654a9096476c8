// The embedded engine on this thread and on its own (`embeddedEngine`'s `thread`): the same
// statements give the same rows, failures and transactions on both; on its own thread a long
// statement leaves this thread free. The BFF opens it on its own thread (decision 0127).
import { afterEach, describe, expect, it } from 'vitest';
import { memoryEngine } from '../../test/engines/embedded';
import { BACKGROUND_LONGEST_WAIT_MS, type SqlEngine } from './sql-engine';

const opened: SqlEngine[] = [];

async function open(thread: 'this' | 'worker'): Promise<SqlEngine> {
  const engine = await memoryEngine({ thread });
  opened.push(engine);
  await engine.query(
    `CREATE TABLE item (id text PRIMARY KEY, cents bigint NOT NULL, at timestamptz,
       bytes bytea, doc jsonb, tags text[], amount numeric)`,
  );
  return engine;
}

/** A promise and what resolves it: a step of a test held until the test lets it go on. */
function gate(): [Promise<void>, () => void] {
  let open!: () => void;
  const shut = new Promise<void>((resolve) => {
    open = resolve;
  });
  return [shut, open];
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((e) => e.close()));
});

/** Turns of the event loop while `work` runs: none when it holds this thread throughout. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turns += 1;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    await work();
  } finally {
    running = false;
  }
  return turns;
}

describe.each(['this', 'worker'] as const)('the embedded engine on %s thread', (thread) => {
  it('gives each type back as PGlite parses it: numbers, dates, bytes, JSON, arrays, numerics', async () => {
    const engine = await open(thread);
    const at = new Date('2026-11-03T10:15:00.123Z');
    await engine.query('INSERT INTO item VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      'a',
      1234,
      at,
      new Uint8Array([0, 1, 254, 255]),
      JSON.stringify({ name: 'Café', n: [1, 2] }),
      ['x', 'y z'],
      '12.50',
    ]);
    const [row] = await engine.query<Record<string, unknown>>('SELECT * FROM item');
    expect(row).toEqual({
      id: 'a',
      cents: 1234,
      at,
      bytes: new Uint8Array([0, 1, 254, 255]),
      doc: { name: 'Café', n: [1, 2] },
      tags: ['x', 'y z'],
      amount: '12.50',
    });
    expect(row?.at).toBeInstanceOf(Date);
  });

  it("fails with the database's own fields: a duplicate key is SQLSTATE 23505 naming its constraint", async () => {
    const engine = await open(thread);
    await engine.query(`INSERT INTO item (id, cents) VALUES ('a', 1)`);
    const failure = await engine.query(`INSERT INTO item (id, cents) VALUES ('a', 2)`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({
      code: '23505',
      constraint: 'item_pkey',
      message: expect.stringContaining('duplicate key'),
    });
    // A failed statement leaves the engine serving the next.
    expect(await engine.query('SELECT count(*)::int AS n FROM item')).toEqual([{ n: 1 }]);
  });

  it('commits a transaction whole, and rolls it back whole when its work throws', async () => {
    const engine = await open(thread);
    await engine.transaction(async (tx) => {
      await tx.query(`INSERT INTO item (id, cents) VALUES ('kept 1', 1)`);
      await tx.query(`INSERT INTO item (id, cents) VALUES ('kept 2', 2)`);
    });
    const refused = new Error('refused by the store');
    await expect(
      engine.transaction(async (tx) => {
        await tx.query(`INSERT INTO item (id, cents) VALUES ('dropped', 3)`);
        throw refused;
      }),
    ).rejects.toBe(refused);
    // A statement that fails inside rolls back what came before it too.
    await expect(
      engine.transaction(async (tx) => {
        await tx.query(`INSERT INTO item (id, cents) VALUES ('dropped too', 4)`);
        await tx.query(`INSERT INTO item (id, cents) VALUES ('kept 1', 5)`);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    const ids = await engine.query<{ id: string }>('SELECT id FROM item ORDER BY id');
    expect(ids.map((r) => r.id)).toEqual(['kept 1', 'kept 2']);
  });

  it("returns a transaction's result, and another caller's statement waits for its commit", async () => {
    const engine = await open(thread);
    const [held, release] = gate();
    const [wrote, inserted] = gate();
    const committed = engine.transaction(async (tx) => {
      await tx.query(`INSERT INTO item (id, cents) VALUES ('in the transaction', 7)`);
      inserted();
      await held;
      return 'its result';
    });
    await wrote;
    let counted: number | undefined;
    const outside = engine
      .query<{ n: number }>('SELECT count(*)::int AS n FROM item')
      .then(([row]) => {
        counted = row?.n;
      });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(counted).toBeUndefined();
    release();
    expect(await committed).toBe('its result');
    await outside;
    expect(counted).toBe(1);
  });

  it("puts people first: background work asked while a person's call is out runs after the calls asked meanwhile", async () => {
    const engine = await open(thread);
    const order: string[] = [];
    const [held, release] = gate();
    const person = engine.transaction(async (tx) => {
      await tx.query(`INSERT INTO item (id, cents) VALUES ('a person', 1)`);
      await held;
      order.push('the first person');
    });
    const background = engine.background(async () => {
      await engine.query(`INSERT INTO item (id, cents) VALUES ('a sync', 2)`);
      order.push('the background work');
    });
    // Asked after the background work: the engine, first come first served, would run it after.
    const another = engine.query('SELECT count(*) FROM item').then(() => order.push('another'));
    release();
    await Promise.all([person, background, another]);
    expect(order).toEqual(['the first person', 'another', 'the background work']);
  });

  it('runs background work one at a time: a call asked while one runs comes before the next', async () => {
    const engine = await open(thread);
    const order: string[] = [];
    const [held, release] = gate();
    const [first, began] = gate();
    const one = engine.background(() =>
      engine.transaction(async (tx) => {
        await tx.query(`INSERT INTO item (id, cents) VALUES ('the first write', 1)`);
        began();
        await held;
        order.push('the first write');
      }),
    );
    const two = engine.background(async () => {
      await engine.query(`INSERT INTO item (id, cents) VALUES ('the second write', 2)`);
      order.push('the second write');
    });
    await first;
    const person = engine.query('SELECT count(*) FROM item').then(() => order.push('a person'));
    release();
    await Promise.all([one, two, person]);
    expect(order).toEqual(['the first write', 'a person', 'the second write']);
  });

  it('runs background work asked ahead before the work that waits without it, each lane in order', async () => {
    const engine = await open(thread);
    const order: string[] = [];
    const [held, release] = gate();
    const [first, began] = gate();
    const write = (name: string, options?: { ahead: boolean }) =>
      engine.background(async () => {
        await engine.query(`INSERT INTO item (id, cents) VALUES ($1, 1)`, [name]);
        order.push(name);
      }, options);
    // A write running; two more wait, then two asked ahead (a sync keeping pages).
    const running = engine.background(async () => {
      began();
      await held;
      order.push('the running write');
    });
    await first;
    const waiting = [write('rows 1'), write('rows 2')];
    const ahead = [write('pages 1', { ahead: true }), write('pages 2', { ahead: true })];
    release();
    await Promise.all([running, ...waiting, ...ahead]);
    expect(order).toEqual(['the running write', 'pages 1', 'pages 2', 'rows 1', 'rows 2']);
    // A failing work is its caller's alone, one that throws before its promise too: the next
    // still runs.
    await expect(
      engine.background(() => Promise.reject(new Error('no')), { ahead: true }),
    ).rejects.toThrow('no');
    await expect(
      engine.background(() => {
        throw new Error('at once');
      }),
    ).rejects.toThrow('at once');
    await write('after a failure');
    expect(order.at(-1)).toBe('after a failure');
  });

  it("runs background work at most BACKGROUND_LONGEST_WAIT_MS after its turn, people's calls going on all the while", async () => {
    const engine = await open(thread);
    let calling = true;
    let calls = 0;
    const people = (async () => {
      // One person's calls back to back for three times the longest wait: never a quiet moment.
      const until = performance.now() + 3 * BACKGROUND_LONGEST_WAIT_MS;
      while (performance.now() < until) {
        await engine.query('SELECT count(*) FROM item');
        calls += 1;
      }
      calling = false;
    })();
    let ranWhileCalling: boolean | undefined;
    await engine.background(async () => {
      ranWhileCalling = calling;
      await engine.query(`INSERT INTO item (id, cents) VALUES ('a sync', 2)`);
    });
    await people;
    expect(calls).toBeGreaterThan(10);
    expect(ranWhileCalling).toBe(true);
  });

  it("runs a migration's several statements and its statements with values", async () => {
    const engine = await open(thread);
    const rows = await engine.withMigrationClient(async (client) => {
      await client.query(`CREATE TABLE m1 (n int); INSERT INTO m1 VALUES (1), (2);`);
      return (await client.query('SELECT sum(n)::int AS total FROM m1 WHERE n >= $1', [1])).rows;
    });
    expect(rows).toEqual([{ total: 3 }]);
  });

  it('refreshes the statistics of the tables named, and refuses what is not a table name', async () => {
    const engine = await open(thread);
    await engine.query(
      `INSERT INTO item (id, cents) SELECT 'r' || i, i FROM generate_series(1, 500) i`,
    );
    await engine.refreshStatistics(['item']);
    const [stats] = await engine.query<{ analyzed: boolean }>(
      `SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = 'item'`,
    );
    expect(stats).toEqual({ analyzed: true });
    await expect(engine.refreshStatistics(['item; DROP TABLE item'])).rejects.toThrow(RangeError);
  });

  it('refuses statements once closed, without waiting', async () => {
    const engine = await open(thread);
    opened.splice(opened.indexOf(engine), 1);
    await engine.close();
    await expect(engine.query('SELECT 1')).rejects.toThrow();
  });
});

describe('the embedded engine on its own thread', () => {
  it('refuses a value it cannot send (this thread spells a function out), and serves the next statement', async () => {
    const engine = await open('worker');
    await expect(engine.query('SELECT $1::text AS v', [() => 'a function'])).rejects.toThrow(
      /could not be cloned/,
    );
    expect(await engine.query('SELECT $1::text AS v', ['text'])).toEqual([{ v: 'text' }]);
  });

  it('leaves this thread free while a long statement runs; on this thread, the statement holds it', async () => {
    const long = `SELECT count(*) FROM generate_series(1, 1000000) i WHERE md5(i::text) LIKE 'ab%'`;
    const [own, shared] = [await open('worker'), await open('this')];
    // Each engine's first statement of the kind done once, so what is timed is the statement.
    await own.query('SELECT 1');
    await shared.query('SELECT 1');
    expect(await turnsDuring(() => shared.query(long))).toBeLessThanOrEqual(2);
    expect(await turnsDuring(() => own.query(long))).toBeGreaterThan(50);
  });
});
