// The issue's "done when" for alert delivery: a real SMTP server (smtp-server, each message
// parsed by mailparser) and a webhook receiver (node:http) on free ports.
// - Two replicas (two apps sharing one PostgreSQL, each its own outbox worker as the BFF's own
//   login, no shared sync lock: both sync and raise the same alerts at once) see matching
//   transactions: exactly one email per recipient and one signed webhook per alert and rule; the
//   receiver answers 500 twice and gets its third try. (Many deliveries at once and a worker
//   stopped mid-send: outbox-delivery-replicas.test.ts.)
// - The embedded engine: one process; a delivery pending when the process stops is sent after
//   the restart, and a rule's daily digest is one email however often it is looked for; a card
//   utilisation and a low balance alert go by email and webhook once each, like a transaction.
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhookTargetCreatedSchema } from '@card-console/shared/api/alerts';
import { simpleParser } from 'mailparser';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../platform/logger';
import { findCardNumbers } from '../../platform/security/card-numbers';
import { INDEX_WRITER_ROLE } from '../../platform/sql/open-postgres';
import { embeddedEngine, postgresEngine, type SqlEngine } from '../../platform/sql/sql-engine';
import { openStores, type Stores } from '../../stores';
import { asSuperuser, silentLogger } from '../../test/audit-cluster';
import { lineSink } from '../../test/capture';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { freePort } from '../../test/engines/free-port';
import { testDatabase } from '../../test/engines/postgres';
import { ManualClock, startTestApp, type TestApp } from '../../test/harness';
import { replicaStores } from '../../test/replica-stores';
import { settledIndexList } from '../../test/settled-index';
import { testPan } from '../../test/test-pan';
import { type AlertDeliveryWorker, deliveryIdOf } from './alert-delivery';
import { createAlertDeliveryWorker } from './alert-delivery-worker';
import { AlertStore } from './alert-store';

interface Mail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  messageId: string | undefined;
  delivery: string | undefined;
}

/** A real SMTP server on a free loopback port that keeps every message it accepts, parsed. */
async function startSmtp() {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          mails.push({
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            messageId: parsed.messageId,
            delivery: parsed.headers.get('card-console-delivery') as string | undefined,
          });
          callback();
        })
        .catch(callback);
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, mails, close: () => new Promise<void>((r) => server.close(() => r())) };
}

interface Post {
  delivery: string;
  timestamp: string;
  signature: string;
  body: string;
  answered: number;
}

/** A webhook receiver: answers 500 to the first `failFirst` posts of each delivery id. */
async function startReceiver(failFirst: number) {
  const posts: Post[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const delivery = String(req.headers['card-console-delivery'] ?? '');
      const earlier = posts.filter((p) => p.delivery === delivery).length;
      const answered = earlier < failFirst ? 500 : 200;
      posts.push({
        delivery,
        timestamp: String(req.headers['card-console-timestamp'] ?? ''),
        signature: String(req.headers['card-console-signature'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
        answered,
      });
      res.statusCode = answered;
      res.end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/hooks/alerts`,
    posts,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** What a receiver computes: `v1=` HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with the secret. */
const expectedSignature = (secret: string, post: Post) =>
  `v1=${createHmac('sha256', secret).update(`${post.timestamp}.${post.body}`).digest('hex')}`;

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 30_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const settings = (smtpPort: number) => ({
  smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
  emailFrom: 'Card Console <alerts@console.example.test>',
  webhook: { allowInsecure: true, allowPrivate: true },
  maxAttempts: 4,
  // 300 ms, then 600 ms: the webhook's third try within a second or so.
  retryBaseMs: 300,
  pollMs: 200,
  timeoutMs: 5_000,
});

/** The newest declined transactions of the simulator, and a time just before the newest. */
function newestDeclines(t: TestApp) {
  const declines = t.sim.data
    .subAccounts()
    .flatMap((s) => t.sim.data.transactions(s.id).filter((tx) => tx.status === 'declined'))
    .sort((a, b) => Date.parse(b.date) - Date.parse(a.date));
  const newest = declines[0];
  if (!newest) throw new Error('the simulator has no declined transaction');
  const before = new Date(Date.parse(newest.date) - 1);
  return {
    before,
    ids: declines.filter((d) => Date.parse(d.date) >= before.getTime()).map((d) => d.id),
  };
}

describe('alert delivery on two replicas sharing one PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let a: TestApp;
  let b: TestApp;
  const workers: AlertDeliveryWorker[] = [];
  const engines: SqlEngine[] = [];

  beforeAll(async () => {
    [database, smtp, receiver] = await Promise.all([testDatabase(), startSmtp(), startReceiver(2)]);
    const clock = new ManualClock();
    const env = { sessionSecret: 'a'.repeat(64), alertDelivery: settings(smtp.port) };
    const index = () => replicaStores(database.url);
    a = await startTestApp({ clock, env, sim: { transactions: 400 }, stores: index() });
    b = await startTestApp({ clock, env, upstreamOf: a, stores: index() });
    // The workers run as the BFF's own login (the index writer's grants only): taking rows
    // `FOR UPDATE` needs no more than the UPDATE it has on the outbox.
    await a.stores.alerts(); // the index's migrations make the writer role
    const login = `cc_alerts_${randomBytes(6).toString('hex')}`;
    const password = randomBytes(12).toString('base64url');
    await asSuperuser(
      database.url,
      `CREATE ROLE ${login} LOGIN PASSWORD '${password}' IN ROLE ${INDEX_WRITER_ROLE}`,
    );
    const loginUrl = new URL(database.url);
    loginUrl.username = login;
    loginUrl.password = password;
    for (const t of [a, b]) {
      const engine = postgresEngine(new pg.Pool({ connectionString: loginUrl.toString(), max: 2 }));
      engines.push(engine);
      const store = new AlertStore(engine);
      const worker = createAlertDeliveryWorker({
        config: t.config,
        stores: { alerts: async () => store },
        teamRecipients: () => t.users.emails(),
        clock,
        logger: silentLogger,
      });
      workers.push(worker);
    }
    // Both replicas' workers start at once, polling the one outbox.
    await Promise.all(workers.map((w) => w.start()));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all(engines.map((e) => e.close()));
    await b?.close();
    await a?.close();
    await Promise.all([smtp?.close(), receiver?.close(), database?.stop()]);
  });

  it('sends exactly one email per recipient and one signed webhook per alert, the webhook’s third try after two 500s', async () => {
    const admin = await a.signIn('admin');
    const created = await a.request
      .post('/api/alerts/webhooks')
      .set(admin.headers())
      .send({ name: 'Finance channel', url: receiver.url });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const target = webhookTargetCreatedSchema.parse(created.body);
    expect(target.secret).toMatch(/^[0-9a-f]{64}$/);

    // Rules older than the newest decline (a rule saved now looks forward only).
    const { before, ids } = newestDeclines(a);
    const store = await a.stores.alerts();
    const own = await store.createRule(
      {
        kind: 'declined',
        name: 'Declines to me and the channel',
        channels: { inbox: true, email: true, webhookTargetId: target.id },
      },
      a.credentials.finance.email,
      before,
    );
    const team = await store.createRule(
      {
        kind: 'declined',
        name: 'Team declines',
        team: true,
        channels: { inbox: false, email: true },
      },
      a.credentials.admin.email,
      before,
    );

    // Both replicas sync at once (no shared lock): both raise the same alerts.
    const [onA, onB] = [await a.signIn('finance'), await b.signIn('finance')];
    await Promise.all([settledIndexList(a, onA), settledIndexList(b, onB)]);

    const team_ = [...new Set(a.users.emails().map((e) => e.toLowerCase()))].sort();
    const wantedMails = ids.length * (1 + team_.length);
    await until(
      () =>
        smtp.mails.length >= wantedMails &&
        receiver.posts.filter((p) => p.answered === 200).length >= ids.length,
      'the emails and webhooks',
    );
    // Let any second copy arrive before counting (a poll or two of both replicas).
    await new Promise((r) => setTimeout(r, 2_500));

    // Email: one per alert to the owner, one per alert to each team recipient; never twice.
    const ownMails = smtp.mails.filter((m) => m.text.includes('Declines to me'));
    expect(ownMails.map((m) => m.to)).toEqual(
      ids.map(() => [a.credentials.finance.email.toLowerCase()]),
    );
    const teamMails = smtp.mails.filter((m) => m.text.includes('Team declines'));
    expect(teamMails.map((m) => m.to[0]).sort()).toEqual(ids.flatMap(() => team_).sort());
    expect(smtp.mails).toHaveLength(wantedMails);
    for (const mail of smtp.mails) {
      expect(mail.text).toContain('Declined transaction');
      expect(mail.html).toContain('<table');
      expect(findCardNumbers(`${mail.subject}\n${mail.text}\n${mail.html}`)).toEqual([]);
      expect(mail.delivery).toMatch(/./);
    }
    expect(new Set(ownMails.map((m) => m.delivery)).size).toBe(ids.length);

    // Webhook: per alert, two 500s then the third try answered 200, and nothing after it.
    const byDelivery = new Map<string, Post[]>();
    for (const post of receiver.posts)
      byDelivery.set(post.delivery, [...(byDelivery.get(post.delivery) ?? []), post]);
    expect(byDelivery.size).toBe(ids.length);
    for (const posts of byDelivery.values()) {
      expect(posts.map((p) => p.answered)).toEqual([500, 500, 200]);
      for (const post of posts) {
        expect(post.signature).toBe(expectedSignature(target.secret, post));
        const body = JSON.parse(post.body);
        expect(body).toMatchObject({ id: post.delivery, type: 'alert' });
        expect(body.text).toContain('Declined transaction');
        expect(ids).toContain(body.alert.transactionId);
      }
      // The same body on every try, signed with the time of the try.
      expect(new Set(posts.map((p) => p.body)).size).toBe(1);
    }
    expect(
      [...byDelivery.keys()].every((id) => id.startsWith(`${own.id}:`) || id.startsWith('k.')),
    ).toBe(true);

    // The outbox agrees: every delivery of both rules sent, none twice.
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const { rows } = await pool.query<{
        rule_id: string;
        channel: string;
        state: string;
        n: number;
      }>(
        `SELECT rule_id, channel, state, count(*)::int AS n FROM alert_delivery
          GROUP BY rule_id, channel, state ORDER BY rule_id = $1 DESC, channel`,
        [own.id],
      );
      expect(rows).toEqual([
        { rule_id: own.id, channel: 'email', state: 'sent', n: ids.length },
        { rule_id: own.id, channel: 'webhook', state: 'sent', n: ids.length },
        { rule_id: team.id, channel: 'email', state: 'sent', n: ids.length * team_.length },
      ]);
    } finally {
      await pool.end();
    }
  }, 120_000);
});

describe('alert delivery on the embedded engine, one process', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dir: string;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    [smtp, receiver] = await Promise.all([startSmtp(), startReceiver(1)]);
    dir = await mkdtemp(join(tmpdir(), 'cc-alert-delivery-'));
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await Promise.all([smtp?.close(), receiver?.close()]);
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  const open = () => {
    const index = openStores({ open: () => embeddedEngine(dir), logger: silentLogger });
    closers.push(() => index.close());
    return index;
  };
  const logs: string[] = [];
  const logger = createLogger('debug', lineSink(logs));
  const worker = (index: Stores, clock: ManualClock, retryBaseMs = 50) =>
    createAlertDeliveryWorker({
      config: {
        alertDelivery: { ...settings(smtp.port), retryBaseMs, pollMs: 50 },
        publicOrigin: 'https://cards.example.test',
      },
      stores: index,
      teamRecipients: () => ['ana@example.test', 'bo@example.test'],
      clock,
      logger,
    });

  it('sends after a restart what was pending, the webhook’s failed try counted, and a digest once a day', async () => {
    const day = Date.UTC(2026, 10, 26, 9);
    const clock = new ManualClock(day);
    const first = open();
    const store = await first.alerts();
    const target = await store.webhookTargets.create(
      { name: 'Ops', url: receiver.url },
      'admin@example.test',
      new Date(day),
    );
    const rule = await store.createRule(
      {
        kind: 'amount_above',
        name: 'Big spend',
        amountCents: 10_000,
        channels: { inbox: true, email: true, webhookTargetId: target.id },
      },
      'ana@example.test',
      new Date(day - 60_000),
    );
    const digest = await store.createRule(
      {
        kind: 'declined',
        name: 'Daily declines',
        team: true,
        digest: true,
        channels: { inbox: true, email: true },
      },
      'admin@example.test',
      new Date(day - 60_000),
    );
    const pan = testPan(42);
    const transaction = (id: string, status: string) => ({
      id,
      at: new Date(day).toISOString(),
      amountCents: -25_000,
      status,
      description: `paid with ${pan}`,
      merchant: 'ACME',
    });
    const raised = await store.raise(
      [
        {
          ruleId: rule.id,
          idempotencyKey: `${rule.id}:t1`,
          payload: {
            kind: 'amount_above',
            ruleName: 'Big spend',
            subAccount: { id: 'sa', name: 'Ops' },
            card: { id: 'c1', name: 'Ops card', lastFour: pan.slice(-4) },
            transaction: transaction('t1', 'settled'),
            thresholdCents: 10_000,
          },
        },
        ...['t2', 't3'].map((id) => ({
          ruleId: digest.id,
          idempotencyKey: `${digest.id}:${id}`,
          payload: {
            kind: 'declined' as const,
            ruleName: 'Daily declines',
            subAccount: { id: 'sa', name: 'Ops' },
            transaction: transaction(id, 'declined'),
          },
        })),
      ],
      { at: new Date(day), teamRecipients: ['ana@example.test', 'bo@example.test'] },
    );
    expect(raised).toHaveLength(3);

    // A first process: the webhook answers 500 (tried again 3 s later, by the database's
    // clock), the email goes; then the process stops before the retry.
    const one = worker(first, clock, 3_000);
    await one.start();
    await until(() => receiver.posts.length === 1 && smtp.mails.length === 1, 'the first tries');
    await one.stop();
    await first.close();
    expect(receiver.posts.map((p) => p.answered)).toEqual([500]);

    // The restart: the same directory, a new worker; the pending webhook is sent once due.
    const second = open();
    const two = worker(second, clock);
    await two.start();
    await until(() => receiver.posts.length === 2, 'the webhook after the restart');
    expect(receiver.posts.map((p) => p.answered)).toEqual([500, 200]);
    expect(receiver.posts[1]?.signature).toBe(
      expectedSignature(
        (await (await second.alerts()).webhookTargets.withSecret(target.id))?.secret ?? '',
        receiver.posts[1] as Post,
      ),
    );
    expect(smtp.mails.map((m) => m.subject)).toEqual([
      expect.stringContaining('Transaction over the amount'),
    ]);
    expect(findCardNumbers(smtp.mails[0]?.text ?? '')).toEqual([]);

    // The next day: the digest rule's alerts of the day before, one email per team recipient,
    // however many workers look for it.
    clock.advance(86_400_000);
    await two.stop();
    const three = worker(second, clock);
    const four = worker(second, clock);
    await Promise.all([three.start(), four.start()]);
    await until(() => smtp.mails.length === 3, 'the digests');
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all([three.stop(), four.stop()]);
    const digests = smtp.mails.slice(1);
    expect(digests.map((m) => m.to[0]).sort()).toEqual(['ana@example.test', 'bo@example.test']);
    for (const mail of digests) {
      expect(mail.subject).toBe('[Card Console] Daily declines: 2 alerts on 2026-11-26');
      expect(mail.text.match(/ACME/g)).toHaveLength(2);
      expect(findCardNumbers(mail.text + mail.html)).toEqual([]);
    }
    expect(receiver.posts).toHaveLength(2);

    // The failed try was logged with what it was about, never the URL, the secret or SMTP's.
    const failed = logs.filter((line) => line.includes('trying again later'));
    expect(failed).toHaveLength(1);
    expect(JSON.parse(failed[0] as string)).toMatchObject({
      channel: 'webhook',
      webhookTargetId: target.id,
      attempt: 1,
    });
    const secret = (await (await second.alerts()).webhookTargets.withSecret(target.id))?.secret;
    for (const line of logs) {
      expect(line).not.toContain(new URL(receiver.url).host);
      expect(line).not.toContain(secret);
      expect(line).not.toContain(`127.0.0.1:${smtp.port}`);
      expect(findCardNumbers(line)).toEqual([]);
    }
  }, 60_000);

  it('sends a card utilisation and a low balance alert like a transaction: one email per recipient and one signed webhook each, once', async () => {
    const ownDir = await mkdtemp(join(tmpdir(), 'cc-alert-delivery-kinds-'));
    closers.push(() => rm(ownDir, { recursive: true, force: true, maxRetries: 5 }));
    const index = openStores({
      open: () => embeddedEngine(ownDir),
      logger: silentLogger,
    });
    closers.push(() => index.close());
    const mailsBefore = smtp.mails.length;
    const postsBefore = receiver.posts.length;
    const day = Date.UTC(2026, 10, 27, 9);
    const clock = new ManualClock(day);
    const store = await index.alerts();
    const target = await store.webhookTargets.create(
      { name: 'Finance', url: receiver.url },
      'admin@example.test',
      new Date(day),
    );
    const channels = { inbox: true, email: true, webhookTargetId: target.id };
    const utilisation = await store.createRule(
      { kind: 'utilisation_above', name: 'Cards past 80%', sharePercent: 80, channels },
      'ana@example.test',
      new Date(day - 60_000),
    );
    const balance = await store.createRule(
      { kind: 'balance_below', name: 'Low balance', team: true, amountCents: 50_000, channels },
      'admin@example.test',
      new Date(day - 60_000),
    );
    const pan = testPan(77);
    const toRaise = [
      {
        ruleId: utilisation.id,
        idempotencyKey: `${utilisation.id}:card_7:2026-11-01`,
        payload: {
          kind: 'utilisation_above' as const,
          ruleName: 'Cards past 80%',
          subAccount: { id: 'sa_ops', name: 'Ops' },
          // A name holding a card number: the payload is stored masked, and sent masked again.
          card: { id: 'card_7', name: `Travel <b>${pan}</b>`, lastFour: pan.slice(-4) },
          sharePercent: 80,
          limitCents: 100_000,
          spentCents: 85_050,
          window: { fromDay: '2026-11-01', toDay: '2026-11-30', timeZone: 'Europe/Paris' },
        },
      },
      {
        ruleId: balance.id,
        idempotencyKey: `${balance.id}:sa_ops:2026-11-27`,
        payload: {
          kind: 'balance_below' as const,
          ruleName: 'Low balance',
          subAccount: { id: 'sa_ops', name: 'Ops & Travel' },
          thresholdCents: 50_000,
          balanceCents: 32_010,
          day: '2026-11-27',
        },
      },
    ];
    const recipients = ['ana@example.test', 'bo@example.test'];
    expect(
      await store.raise(toRaise, { at: new Date(day), teamRecipients: recipients }),
    ).toHaveLength(2);
    // Raised again (a second sync of the same day): nothing new, nothing sent twice.
    expect(
      await store.raise(toRaise, { at: new Date(day), teamRecipients: recipients }),
    ).toHaveLength(0);

    // Two workers over one outbox; the receiver answers 500 to each delivery's first try.
    const workers = [worker(index, clock), worker(index, clock)];
    await Promise.all(workers.map((w) => w.start()));
    const mails = () => smtp.mails.slice(mailsBefore);
    const posts = () => receiver.posts.slice(postsBefore);
    try {
      await until(
        () => mails().length >= 3 && posts().filter((p) => p.answered === 200).length >= 2,
        'the emails and webhooks',
      );
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }

    // Email: the utilisation to its owner, the team's balance to each team recipient.
    const sent = mails();
    expect(sent).toHaveLength(3);
    const utilisationMails = sent.filter((m) => m.subject.includes('Card utilisation'));
    expect(utilisationMails.map((m) => m.to)).toEqual([['ana@example.test']]);
    const utilisationMail = utilisationMails[0] as Mail;
    expect(utilisationMail.subject).toBe(
      `[Card Console] Card utilisation over 80%: $850.50 of $1,000.00 spent on card •••• ${pan.slice(-4)}`,
    );
    expect(utilisationMail.text).toContain('Window: 2026-11-01 to 2026-11-30 (Europe/Paris)');
    expect(utilisationMail.text).toContain('https://cards.example.test/cards/card_7');
    expect(utilisationMail.html).toContain('Travel &lt;b&gt;');
    const balanceMails = sent.filter((m) => m.subject.includes('Low balance'));
    expect(balanceMails.map((m) => m.to[0]).sort()).toEqual(recipients);
    for (const mail of balanceMails) {
      expect(mail.subject).toBe(
        '[Card Console] Low balance: $320.10 in Ops & Travel, under $500.00',
      );
      expect(mail.text).toContain('https://cards.example.test/transactions?subAccountId=sa_ops');
      expect(mail.html).toContain('Ops &amp; Travel');
    }
    for (const mail of sent) {
      expect(findCardNumbers(`${mail.subject}\n${mail.text}\n${mail.html}`)).toEqual([]);
      expect(`${mail.text}${mail.html}`.replace(/\D/g, '')).not.toContain(pan.slice(0, 12));
    }

    // Webhook: one delivery per alert, its failed try then one 200, each try signed.
    const secret = (await store.webhookTargets.withSecret(target.id))?.secret ?? '';
    const byDelivery = new Map<string, Post[]>();
    for (const post of posts())
      byDelivery.set(post.delivery, [...(byDelivery.get(post.delivery) ?? []), post]);
    // The delivery id is the alert's key, or its digest when the key does not fit a header (a
    // rule id is random base64url: it may hold '_' or begin with '-').
    const ids = toRaise.map((r) => deliveryIdOf(r.idempotencyKey));
    expect([...byDelivery.keys()].sort()).toEqual([...ids].sort());
    const bodies = new Map<string, { text: string; alert: Record<string, unknown> }>();
    for (const [id, tries] of byDelivery) {
      expect(tries.map((p) => p.answered)).toEqual([500, 200]);
      for (const post of tries) {
        expect(post.signature).toBe(expectedSignature(secret, post));
        expect(findCardNumbers(post.body)).toEqual([]);
      }
      const body = JSON.parse(tries[1]?.body ?? '');
      expect(body).toMatchObject({ id, type: 'alert' });
      bodies.set(id, body);
    }
    const utilisationBody = bodies.get(ids[0] ?? '');
    expect(utilisationBody?.alert).toMatchObject({
      kind: 'card_utilisation',
      card: { id: 'card_7', lastFour: pan.slice(-4) },
      sharePercent: 80,
      limit: { cents: 100_000, currency: 'USD' },
      spent: { cents: 85_050, currency: 'USD' },
      window: { fromDay: '2026-11-01', toDay: '2026-11-30', timeZone: 'Europe/Paris' },
      linkPath: '/cards/card_7',
    });
    expect(utilisationBody?.text).toMatch(/^Card utilisation over 80%: .*\|Open>$/);
    const balanceBody = bodies.get(ids[1] ?? '');
    expect(balanceBody?.alert).toEqual({
      ruleName: 'Low balance',
      kind: 'balance_below',
      subAccount: { id: 'sa_ops', name: 'Ops & Travel' },
      threshold: { cents: 50_000, currency: 'USD' },
      balance: { cents: 32_010, currency: 'USD' },
      day: '2026-11-27',
      linkPath: '/transactions?subAccountId=sa_ops',
    });
    expect(balanceBody?.text).toContain('Low balance: $320.10 in Ops &amp; Travel');
  }, 60_000);

  it('never opens the embedded engine itself: it works the outbox once the index’s first use has', async () => {
    let opened = 0;
    const index = openStores({
      open: async () => {
        opened++;
        return migratedMemoryEngine();
      },
      logger: silentLogger,
    });
    closers.push(() => index.close());
    const idle = createAlertDeliveryWorker({
      config: {
        alertDelivery: { ...settings(smtp.port), pollMs: 50 },
        publicOrigin: 'https://cards.example.test',
      },
      stores: index,
      teamRecipients: () => [],
      clock: new ManualClock(),
      logger,
      indexOpen: () => false,
    });
    await idle.start();
    await new Promise((r) => setTimeout(r, 300));
    await idle.stop();
    expect(opened).toBe(0);
  });
});
