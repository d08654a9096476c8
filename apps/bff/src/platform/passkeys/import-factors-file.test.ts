import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock';
import { lineSink } from '../../test/capture';
import { postgresReplicas, type SqlReplicas } from '../../test/engines/sql-replicas';
import { FailingAuditStore } from '../../test/failing-audit';
import { JsonlAuditStore } from '../audit/jsonl-audit-store';
import type { SqlEngine } from '../sql/sql-engine';
import type { StoredPasskey } from './factor-store';
import { FileFactorStore, SECOND_FACTORS_FILE } from './file-factor-store';
import { IMPORT_ACTOR, importFactorsFile } from './import-factors-file';
import { SqlFactorStore } from './sql-factor-store';

// Replicas log in holding card_console_index_writer only: a missing GRANT fails the tests.
let pg: SqlReplicas;
const dirs: string[] = [];
beforeAll(async () => {
  pg = await postgresReplicas();
}, 120_000);
afterAll(async () => {
  await pg?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

const freshDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cc-import-factors-'));
  dirs.push(dir);
  return dir;
};

let run = 0;
/** Emails and credential ids no other test uses (one database for the whole file). */
const fresh = () => {
  run += 1;
  return {
    email: (name: string) => `${name}-${run}@example.test`,
    id: (name: string) => `${name}-${run}`,
  };
};

const key = (id: string, extra: Partial<StoredPasskey> = {}): StoredPasskey => ({
  id,
  publicKey: `pQECAyYgASFYIA${id.replace(/[^A-Za-z0-9]/g, '')}`,
  counter: 3,
  transports: ['usb', 'nfc'],
  name: `Key ${id}`,
  createdAt: 1_760_000_000_000,
  ...extra,
});

interface FilePerson {
  passkeys: StoredPasskey[];
  totpDisabled?: boolean;
}

/** DATA_DIR with a second-factors file, written by the file store itself (the real format). */
async function dataDirWith(people: Record<string, FilePerson>): Promise<string> {
  const dir = await freshDir();
  const store = await FileFactorStore.open(dir);
  for (const [email, person] of Object.entries(people)) {
    for (const passkey of person.passkeys) {
      expect(await store.addPasskey(email, passkey)).toBe('added');
    }
    if (person.totpDisabled) expect(await store.setTotpDisabled(email, true)).toBe('ok');
  }
  return dir;
}

/** A replica's start-up import, with its log lines and the audit trail it writes to. */
async function importOn(engine: SqlEngine, dataDir: string, audit = new FailingAuditStore(trail)) {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, lineSink(lines));
  await importFactorsFile({ engine, dataDir, audit, logger });
  const logs = lines.map((line) => JSON.parse(line) as { level: number; msg: string } & object);
  return {
    logs,
    errors: logs.filter((l) => l.level >= 50),
    warnings: logs.filter((l) => l.level === 40),
  };
}

let trail: JsonlAuditStore;
beforeAll(async () => {
  trail = new JsonlAuditStore(await freshDir(), systemClock);
});
const importRecords = async (email: string) =>
  (await trail.list({ limit: 100, filter: { actor: IMPORT_ACTOR } })).items.filter(
    (r) => r.target === email,
  );

const rows = (emails: string[]) =>
  pg.owner.query<{ email: string; ids: string[] | null; totp_disabled: boolean }>(
    `SELECT f.email, f.totp_disabled, array_agg(p.id ORDER BY p.id) FILTER (WHERE p.id IS NOT NULL) AS ids
       FROM person_factors f LEFT JOIN person_passkey p ON p.email = f.email
      WHERE f.email = ANY($1::text[]) GROUP BY f.email, f.totp_disabled ORDER BY f.email`,
    [emails],
  );

describe('importing DATA_DIR/second-factors.json into PostgreSQL at start', () => {
  it("brings every person's passkeys and TOTP switch in as they were, audits each person, keeps the file renamed", async () => {
    const n = fresh();
    const [ada, bo] = [n.email('ada'), n.email('bo')];
    const adaKeys = [
      key(n.id('ada-1'), { counter: 41, lastUsedAt: 1_760_000_500_000 }),
      key(n.id('ada-2'), {
        transports: ['internal'],
        name: 'Laptop',
        createdAt: 1_760_000_100_000,
      }),
    ];
    const boKey = key(n.id('bo-1'), { transports: [], name: 'Phone 📱', counter: 0 });
    const dir = await dataDirWith({
      [ada]: { passkeys: adaKeys, totpDisabled: true },
      [bo]: { passkeys: [boKey] },
    });
    const original = await readFile(join(dir, SECOND_FACTORS_FILE), 'utf8');

    const { logs, errors } = await importOn(pg.a, dir);

    expect(errors).toEqual([]);
    const store = new SqlFactorStore(pg.b);
    expect(await store.get(ada)).toEqual({ passkeys: adaKeys, totpDisabled: true });
    const { transports: _, ...boWithoutTransports } = boKey;
    expect(await store.get(bo)).toEqual({ passkeys: [boWithoutTransports], totpDisabled: false });
    expect(await readdir(dir)).toEqual([`${SECOND_FACTORS_FILE}.imported`]);
    expect(await readFile(join(dir, `${SECOND_FACTORS_FILE}.imported`), 'utf8')).toBe(original);
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 30,
        people: 2,
        passkeys: 3,
        skipped: 0,
        msg: expect.stringContaining(': 2 people, 3 passkeys'),
      }),
    );
    for (const [email, detail] of [
      [ada, 'imported at start from second-factors.json: 2 passkeys, TOTP off'],
      [bo, 'imported at start from second-factors.json: 1 passkey'],
    ] as const) {
      expect(await importRecords(email)).toEqual([
        expect.objectContaining({
          actor: 'system',
          action: 'factor.enrolled',
          outcome: 'success',
          method: 'passkey',
          target: email,
          detail,
        }),
      ]);
      expect((await importRecords(email))[0]).not.toHaveProperty('role');
    }
  });

  it('a rerun (the file back after a crash before its rename) adds nothing, audits nothing, keeps both copies', async () => {
    const n = fresh();
    const ada = n.email('ada');
    const people = { [ada]: { passkeys: [key(n.id('a')), key(n.id('b'))], totpDisabled: true } };
    const dir = await dataDirWith(people);
    const file = join(dir, SECOND_FACTORS_FILE);
    const text = await readFile(file, 'utf8');
    await importOn(pg.a, dir);
    // The admin uses a passkey and turns TOTP back on in the meantime.
    const store = new SqlFactorStore(pg.a);
    expect(await store.recordUse(ada, n.id('a'), 90, 1_760_000_900_000)).toBe(true);
    expect(await store.setTotpDisabled(ada, false)).toBe('ok');
    const before = await store.get(ada);
    await writeFile(file, text);

    const { logs, errors } = await importOn(pg.b, dir);

    expect(errors).toEqual([]);
    expect(await store.get(ada)).toEqual(before);
    expect(await importRecords(ada)).toHaveLength(1);
    expect(logs).toContainEqual(expect.objectContaining({ people: 0, passkeys: 0 }));
    expect((await readdir(dir)).sort()).toEqual([
      `${SECOND_FACTORS_FILE}.imported`,
      `${SECOND_FACTORS_FILE}.imported.2`,
    ]);
  });

  it('two replicas importing their own files at once: every passkey once, the higher counter, one record per person each brought', async () => {
    const n = fresh();
    const shared = n.email('shared');
    const others = Array.from({ length: 12 }, (_, i) => n.email(`p${i}`));
    const common = n.id('common');
    // Both files name the shared person (a passkey each, one in both) and the same 12 people
    // with the same passkeys: the two imports contend for every row.
    // And each file a person of its own per contested credential id (one authenticator in two
    // people's files): PostgreSQL takes it once, for whichever import comes first.
    const contested = Array.from({ length: 12 }, (_, i) => n.id(`contested${i}`));
    const owners = (side: 'a' | 'b') => contested.map((_, i) => n.email(`x${side}${i}`));
    const file = (side: 'a' | 'b', counter: number) => ({
      [shared]: {
        passkeys: [key(common, { counter }), key(n.id(`only-${side}`))],
        totpDisabled: true,
      },
      ...Object.fromEntries(others.map((email, i) => [email, { passkeys: [key(n.id(`k${i}`))] }])),
      ...Object.fromEntries(
        owners(side).map((email, i) => [email, { passkeys: [key(contested[i] as string)] }]),
      ),
    });
    const [dirA, dirB] = await Promise.all([dataDirWith(file('a', 7)), dataDirWith(file('b', 12))]);

    const [a, b] = await Promise.all([importOn(pg.a, dirA), importOn(pg.b, dirB)]);

    expect([...a.errors, ...b.errors]).toEqual([]);
    expect(await readdir(dirA)).toEqual([`${SECOND_FACTORS_FILE}.imported`]);
    expect(await readdir(dirB)).toEqual([`${SECOND_FACTORS_FILE}.imported`]);
    const held = await rows([shared, ...others]);
    expect(held.find((r) => r.email === shared)).toEqual({
      email: shared,
      ids: [common, n.id('only-a'), n.id('only-b')].sort(),
      totp_disabled: true,
    });
    for (const [i, email] of others.entries()) {
      expect(held.find((r) => r.email === email)?.ids).toEqual([n.id(`k${i}`)]);
      expect(await importRecords(email)).toHaveLength(1);
    }
    const [{ counter } = { counter: '' }] = await pg.owner.query<{ counter: string }>(
      'SELECT counter::text FROM person_passkey WHERE id = $1',
      [common],
    );
    expect(counter).toBe('12');
    // Each replica brought the shared person a passkey of their own: a record each.
    expect(await importRecords(shared)).toHaveLength(2);
    const [held1, held2] = [await rows(owners('a')), await rows(owners('b'))];
    expect([...held1, ...held2].flatMap((r) => r.ids ?? []).sort()).toEqual([...contested].sort());
    const passkeys = (r: typeof a) =>
      (r.logs.find((l) => 'passkeys' in l) as { passkeys: number } | undefined)?.passkeys ?? 0;
    expect(passkeys(a) + passkeys(b)).toBe(3 + others.length + contested.length);
  });

  it('a person PostgreSQL already holds keeps their TOTP switch and passkeys; new ones are added, the higher counter wins', async () => {
    const n = fresh();
    const [ada, bo] = [n.email('ada'), n.email('bo')];
    const store = new SqlFactorStore(pg.a);
    const inPg = key(n.id('both'), { name: 'Named in Card Console', counter: 5 });
    const higherInPg = key(n.id('higher-in-pg'), { counter: 70, lastUsedAt: 1_760_000_800_000 });
    await store.addPasskey(ada, inPg);
    await store.addPasskey(ada, higherInPg);
    await store.addPasskey(bo, key(n.id('bo-pg')));
    await store.setTotpDisabled(bo, true);
    const dir = await dataDirWith({
      // Ada turned TOTP off in the file, but on in PostgreSQL: PostgreSQL's choice stands.
      [ada]: {
        passkeys: [
          key(n.id('both'), { name: 'Old name', counter: 9, lastUsedAt: 1_760_000_300_000 }),
          key(n.id('higher-in-pg'), { counter: 2, lastUsedAt: 1_760_000_100_000 }),
          key(n.id('new'), { createdAt: 1_760_000_200_000 }),
        ],
        totpDisabled: true,
      },
      [bo]: { passkeys: [key(n.id('bo-file'), { createdAt: 1_760_000_900_000 })] },
    });

    const { errors } = await importOn(pg.b, dir);

    expect(errors).toEqual([]);
    expect(await store.get(ada)).toEqual({
      passkeys: [
        { ...inPg, counter: 9, lastUsedAt: 1_760_000_300_000 },
        higherInPg,
        key(n.id('new'), { createdAt: 1_760_000_200_000 }),
      ],
      totpDisabled: false,
    });
    // Bo's TOTP stays off in PostgreSQL though his file said on.
    expect(await store.get(bo)).toEqual({
      passkeys: [key(n.id('bo-pg')), key(n.id('bo-file'), { createdAt: 1_760_000_900_000 })],
      totpDisabled: true,
    });
    expect((await importRecords(ada))[0]?.detail).toBe(
      'imported at start from second-factors.json: 1 passkey',
    );
  });

  it("another person's credential id and passkeys past ten are skipped, each named in a warning", async () => {
    const n = fresh();
    const [ada, bo, cy] = [n.email('ada'), n.email('bo'), n.email('cy')];
    const store = new SqlFactorStore(pg.a);
    await store.addPasskey(bo, key(n.id('bos')));
    for (let i = 0; i < 9; i += 1)
      await store.addPasskey(cy, key(n.id(`cy${i}`), { createdAt: i }));
    const dir = await dataDirWith({
      [ada]: { passkeys: [key(n.id('bos')), key(n.id('adas'))] },
      // The oldest come in first: with room for one, the oldest of the file's three.
      [cy]: {
        passkeys: [
          key(n.id('cy-new-2'), { createdAt: 20 }),
          key(n.id('cy-new-1'), { createdAt: 10 }),
          key(n.id('cy-new-3'), { createdAt: 30 }),
        ],
        totpDisabled: true,
      },
    });

    const { logs, warnings, errors } = await importOn(pg.b, dir);

    expect(errors).toEqual([]);
    expect((await store.get(ada)).passkeys.map((p) => p.id)).toEqual([n.id('adas')]);
    expect((await store.get(bo)).passkeys.map((p) => p.id)).toEqual([n.id('bos')]);
    const cyAfter = await store.get(cy);
    expect(cyAfter.passkeys).toHaveLength(10);
    expect(cyAfter.passkeys.at(-1)?.id).toBe(n.id('cy-new-1'));
    // Cy was in PostgreSQL already: TOTP stays on.
    expect(cyAfter.totpDisabled).toBe(false);
    expect(warnings).toEqual([
      expect.objectContaining({ person: ada, skipped: 1 }),
      expect.objectContaining({ person: cy, skipped: 2 }),
    ]);
    expect(logs).toContainEqual(expect.objectContaining({ people: 2, passkeys: 2, skipped: 3 }));
  });

  it('a person whose every passkey another holds gets nothing: no row, no TOTP off, no record', async () => {
    const n = fresh();
    const [ada, bo] = [n.email('ada'), n.email('bo')];
    await new SqlFactorStore(pg.a).addPasskey(bo, key(n.id('taken')));
    const dir = await dataDirWith({
      [ada]: { passkeys: [key(n.id('taken'))], totpDisabled: true },
    });

    await importOn(pg.b, dir);

    expect(await rows([ada])).toEqual([]);
    expect(await importRecords(ada)).toEqual([]);
  });

  it('a broken file is logged as an error naming it and left in place; the start goes on; fixed, it comes in', async () => {
    const n = fresh();
    const ada = n.email('ada');
    for (const broken of [
      '{"version": 1, "people": {',
      JSON.stringify({ version: 2, people: {} }),
      JSON.stringify({ version: 1, people: { [ada]: { passkeys: [{ id: 'not base64!' }] } } }),
    ]) {
      const dir = await freshDir();
      const file = join(dir, SECOND_FACTORS_FILE);
      await writeFile(file, broken);

      const { errors } = await importOn(pg.a, dir);

      expect(errors).toEqual([
        expect.objectContaining({ file, msg: expect.stringContaining(`${file} is not`) }),
      ]);
      expect(errors[0]?.msg).toContain('left in place');
      expect(await readdir(dir)).toEqual([SECOND_FACTORS_FILE]);
      expect(await readFile(file, 'utf8')).toBe(broken);
    }
    expect(await rows([ada])).toEqual([]);
  });

  it('no file: nothing logged, nothing written', async () => {
    const dir = await freshDir();
    const { logs } = await importOn(pg.a, dir);
    expect(logs).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('a trail that cannot take a record leaves that person out and the file in place; the next start brings them in', async () => {
    const n = fresh();
    const [ada, bo] = [n.email('ada'), n.email('bo')];
    const dir = await dataDirWith({
      [ada]: { passkeys: [key(n.id('a'))], totpDisabled: true },
      [bo]: { passkeys: [key(n.id('b'))] },
    });
    const failing = new FailingAuditStore(trail);
    failing.failWhen = (record) => record.target === bo;

    const first = await importOn(pg.a, dir, failing);

    expect(first.errors).toEqual([
      expect.objectContaining({ msg: expect.stringContaining('not imported') }),
    ]);
    expect((await rows([ada, bo])).map((r) => r.email)).toEqual([ada]);
    expect(await readdir(dir)).toEqual([SECOND_FACTORS_FILE]);

    const second = await importOn(pg.b, dir);

    expect(second.errors).toEqual([]);
    expect(await rows([ada, bo])).toEqual([
      { email: ada, ids: [n.id('a')], totp_disabled: true },
      { email: bo, ids: [n.id('b')], totp_disabled: false },
    ]);
    expect(await importRecords(ada)).toHaveLength(1);
    expect(await importRecords(bo)).toHaveLength(1);
  });
});
