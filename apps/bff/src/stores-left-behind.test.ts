// What a person removed from People takes with them (`personLeftBehind`, wired into the people
// store by src/stores.ts): their receipt inbox and forwarding address, their own alert rules,
// their copies of alerts and the alert emails not yet sent to them, dropped in the removal's own
// transaction. On PostgreSQL as the replicas log in (holding card_console_index_writer only, so
// a missing GRANT fails here) and on the embedded engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertStore } from './features/alerts';
import { PeopleStore } from './features/people';
import { fileUser } from './features/people/people-store.contract';
import { ReceiptInboxStore } from './features/receipt-inbox/inbox-store';
import type { SqlEngine } from './platform/sql/sql-engine';
import { personLeftBehind } from './stores';
import { migratedMemoryEngine } from './test/engines/embedded';
import { postgresReplicas, type SqlReplicas } from './test/engines/sql-replicas';
import { ManualClock } from './test/manual-clock';
import { pdfReceipt } from './test/receipt-files';
import { testTotpSecrets } from './test/totp-keys';

let pg: SqlReplicas;
let embedded: SqlEngine;
beforeAll(async () => {
  [pg, embedded] = await Promise.all([postgresReplicas(), migratedMemoryEngine()]);
}, 120_000);
afterAll(async () => {
  await embedded?.close();
  await pg?.close();
});

let n = 0;
const AT = new Date(Date.UTC(2026, 11, 7, 9));

/** A person with a receipt waiting, one attached, an address, a rule, an alert and an email due. */
async function personWithThings(engine: SqlEngine, people: PeopleStore) {
  const email = `leaver-${++n}-${Date.now().toString(36)}@example.test`;
  const other = `stays-${n}-${Date.now().toString(36)}@example.test`;
  await people.importUsers([await fileUser(email, 'finance'), await fileUser(other, 'admin')]);
  const inbox = new ReceiptInboxStore(engine);
  const alerts = new AlertStore(engine);
  const file = (name: string) => ({
    fileName: name,
    mediaType: 'application/pdf',
    content: Buffer.concat([pdfReceipt(), Buffer.from(name)]),
  });
  for (const owner of [email, other]) {
    await inbox.receive(owner, file(`${owner}-a.pdf`), 'upload', AT);
    await inbox.receive(owner, file(`${owner}-b.pdf`), 'upload', AT);
    await inbox.forwardingSecret(owner, () => `secret-${owner}`, AT);
    await alerts.createRule(
      { kind: 'declined', name: 'Declines', channels: { inbox: true, email: true } },
      owner,
      AT,
    );
  }
  const alertId = `alert-${n}`;
  await engine.query(
    `INSERT INTO alert (id, idempotency_key, raised_at, payload) VALUES ($1, $1, $2, '{}')`,
    [alertId, AT.toISOString()],
  );
  for (const [i, recipient] of [email, other].entries()) {
    await engine.query(
      'INSERT INTO alert_inbox (alert_id, recipient_email, raised_at) VALUES ($1, $2, $3)',
      [alertId, recipient, AT.toISOString()],
    );
    await engine.query(
      `INSERT INTO alert_delivery (key, alert_id, channel, recipient, created_at, next_attempt_at)
       VALUES ($1, $2, 'email', $3, $4, $4)`,
      [`${alertId}/email/${i}`, alertId, recipient, AT.toISOString()],
    );
  }
  return { email, other, inbox, alerts };
}

/** What is kept under `email`, counted as the drop counts it. */
async function kept(engine: SqlEngine, email: string) {
  const count = async (sql: string) =>
    ((await engine.query<{ n: number }>(sql, [email]))[0] as { n: number }).n;
  return {
    items: await count('SELECT count(*)::int AS n FROM receipt_inbox_item WHERE owner = $1'),
    address: await count(
      'SELECT count(*)::int AS n FROM receipt_forwarding_address WHERE owner = $1',
    ),
    rules: await count('SELECT count(*)::int AS n FROM alert_rule WHERE owner_email = $1'),
    copies: await count('SELECT count(*)::int AS n FROM alert_inbox WHERE recipient_email = $1'),
    due: await count(
      "SELECT count(*)::int AS n FROM alert_delivery WHERE recipient = $1 AND state = 'pending'",
    ),
  };
}

const all = { items: 2, address: 1, rules: 1, copies: 1, due: 1 };
const none = { items: 0, address: 0, rules: 0, copies: 0, due: 0 };

describe.each([
  ['PostgreSQL, as a replica', () => pg.a],
  ['the embedded engine', () => embedded],
])('a person removed, on %s', (_name, engineOf) => {
  const store = () =>
    new PeopleStore(engineOf(), new ManualClock(AT.getTime()), testTotpSecrets(), personLeftBehind);

  it('takes what was theirs alone, says what, and leaves everyone else’s', async () => {
    const engine = engineOf();
    const people = store();
    const { email, other } = await personWithThings(engine, people);
    const removed = await people.remove(email);
    expect(removed.leftBehind).toEqual([
      '2 receipts in their inbox, not attached',
      'their receipt forwarding address',
      '1 alert rule',
      '1 alert in their inbox',
      '1 alert email not yet sent',
    ]);
    expect(await kept(engine, email)).toEqual(none);
    expect(await kept(engine, other)).toEqual(all);
    const [stopped] = await engine.query<{ state: string; last_error: string }>(
      'SELECT state, last_error FROM alert_delivery WHERE recipient = $1',
      [email],
    );
    expect(stopped).toEqual({ state: 'failed', last_error: 'the recipient was removed' });
  });

  it('with the removal’s record refused, is not removed and keeps everything', async () => {
    const engine = engineOf();
    const people = store();
    const { email } = await personWithThings(engine, people);
    let heard: string[] | undefined;
    await expect(
      people.remove(email, async (removed) => {
        heard = removed.leftBehind;
        throw new Error('the trail is down');
      }),
    ).rejects.toThrow('the trail is down');
    // The hook was told what would go; none of it went.
    expect(heard).toHaveLength(5);
    expect(await people.find(email)).toBeDefined();
    expect(await kept(engine, email)).toEqual(all);
  });

  it('drops leftovers under an email nobody has, and nothing of someone who is here', async () => {
    const engine = engineOf();
    const people = store();
    const { email, other } = await personWithThings(engine, people);
    // As if a removal's drops had not run (an older build removed them).
    await engine.query('DELETE FROM person WHERE email = $1', [email]);
    // What is dropped is handed to the caller's record, in the drop's transaction; nothing
    // dropped, nothing to record.
    const recorded: string[][] = [];
    const record = async (dropped: string[]) => {
      recorded.push(dropped);
    };
    expect(await people.dropLeftBehind(other, record)).toEqual([]);
    expect(await kept(engine, other)).toEqual(all);
    const dropped = await people.dropLeftBehind(email, record);
    expect(dropped).toHaveLength(5);
    expect(recorded).toEqual([dropped]);
    expect(await kept(engine, email)).toEqual(none);
    expect(await people.dropLeftBehind(email, record)).toEqual([]);
    expect(recorded).toHaveLength(1);
  });

  it('a first single sign-on under an email with leftovers starts with none of them', async () => {
    const engine = engineOf();
    const people = store();
    const { email, other } = await personWithThings(engine, people);
    await engine.query('DELETE FROM person WHERE email = $1', [email]);
    const claims = { issuer: 'https://idp.example.test', subject: `sub-${n}`, role: 'finance' };
    const person = await people.upsertSsoPerson({ ...claims, email });
    expect(person).toMatchObject({ email, role: 'finance' });
    expect(await kept(engine, email)).toEqual(none);
    // Someone here already (a sign-on under another's email is refused): nothing of theirs goes.
    await expect(
      people.upsertSsoPerson({ ...claims, subject: `other-${n}`, email: other }),
    ).rejects.toThrow();
    expect(await kept(engine, other)).toEqual(all);
  });
});
