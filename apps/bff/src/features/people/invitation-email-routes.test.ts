// Inviting someone with email delivery set up, over real HTTP to a real SMTP server on a
// loopback port: the invitee gets the link in the text and HTML parts and the answer says
// `emailed: true`; when the server refuses or is not there, the invitation still stands, the
// admin gets the link with `emailed: false`, and no log line holds the token.
import { invitationCreatedSchema, peopleListSchema } from '@card-console/shared/api/people';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../platform/logger';
import { invitationSenderFromSettings } from '../../platform/notify/invitation-email';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { freePort } from '../../test/engines/free-port';
import { ManualClock } from '../../test/manual-clock';
import { FakePersonSessions, type PeopleTestApp, startPeopleApp } from '../../test/people-test-app';
import { testTotpSecrets } from '../../test/totp-keys';
import { PeopleStore } from './people-store';
import { emptyPeople, fileUser } from './people-store.contract';

const ANA = 'ana@example.test';
const NEW = 'new@example.test';
const FROM = 'Card Console <alerts@console.example.test>';

let engine: SqlEngine;
let clock: ManualClock;
let store: PeopleStore;
let logLines: string[];
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  engine = await migratedMemoryEngine();
});
afterAll(() => engine.close());

beforeEach(async () => {
  await emptyPeople(engine);
  clock = new ManualClock();
  store = new PeopleStore(engine, clock, testTotpSecrets());
  await store.importUsers([await fileUser(ANA, 'admin')]);
  logLines = [];
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real SMTP server that keeps what it accepts, or refuses every recipient. */
async function startSmtp(options: { refuse?: boolean } = {}) {
  const received: { raw: string; to: string[] }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!options.refuse) return callback();
      callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          raw: Buffer.concat(chunks).toString('utf8'),
          to: session.envelope.rcptTo.map((r) => r.address),
        });
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return { port, received };
}

/** The People endpoints with invitations emailed through `smtp://127.0.0.1:port`. */
async function appSendingTo(port: number): Promise<PeopleTestApp> {
  const sendInvitation = invitationSenderFromSettings(
    { smtpUrl: `smtp://127.0.0.1:${port}`, emailFrom: FROM },
    'https://console.example.test',
    { connectionMs: 2_000, greetingMs: 2_000, socketMs: 2_000 },
  );
  if (!sendInvitation) throw new Error('email settings were given');
  const logger = createLogger('debug', { write: (line: string) => void logLines.push(line) });
  const t = await startPeopleApp({
    store,
    clock,
    sessions: new FakePersonSessions(),
    sendInvitation,
    logger,
  });
  cleanups.push(() => t.close());
  return t;
}

async function invite(t: PeopleTestApp) {
  const ana = await t.signIn(ANA, 'admin');
  const res = await t.request
    .post('/api/people/invitations')
    .set(t.headers(ana))
    .send({ email: NEW, role: 'admin', days: 3 });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const created = invitationCreatedSchema.parse(res.body);
  const token = created.link.split('#')[1] ?? '';
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const list = peopleListSchema.parse(
    (await t.request.get('/api/people').set(t.headers(ana))).body,
  );
  return { created, token, invitations: list.invitations };
}

describe('invitations by email', () => {
  it('emails the invitee the link (text and HTML), who invited them, the role and the expiry', async () => {
    const smtp = await startSmtp();
    const t = await appSendingTo(smtp.port);
    const { created, token } = await invite(t);
    expect(created.emailed).toBe(true);

    expect(smtp.received).toHaveLength(1);
    const [message] = smtp.received;
    expect(message?.to).toEqual([NEW]);
    const mail = await simpleParser(message?.raw ?? '');
    expect(mail.from?.text).toContain('alerts@console.example.test');
    expect(mail.subject).toBe('You are invited to Card Console');
    expect(mail.subject).not.toContain(token);
    expect(mail.text).toContain(created.link);
    expect(mail.text).toContain(`${ANA} invited you`);
    expect(mail.text).toContain('as an admin');
    const expiry = new Date(created.expiresAt);
    const day = expiry.getUTCDate();
    expect(mail.text).toContain(`until ${day} `);
    expect(mail.text).toContain(`${expiry.getUTCFullYear()}`);
    const html = typeof mail.html === 'string' ? mail.html : '';
    expect(html).toContain(`href="${created.link}"`);
    expect(html).toContain(`${ANA} invited you`);
    // The token travels in the body only: no header carries it.
    const headers = (message?.raw ?? '').split(/\r?\n\r?\n/)[0] ?? '';
    expect(headers).not.toContain(token);
    expect(logLines.join('\n')).not.toContain(token);
  });

  it('a refusing SMTP server: the invitation stands, emailed false, logged at warn without the link', async () => {
    const smtp = await startSmtp({ refuse: true });
    const t = await appSendingTo(smtp.port);
    const { created, token, invitations } = await invite(t);
    expect(created.emailed).toBe(false);
    expect(created.link).toContain(`/join#${token}`);
    expect(invitations.map((i) => [i.email, i.role])).toEqual([[NEW, 'admin']]);
    expect(smtp.received).toEqual([]);

    const warnings = logLines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
    expect(warnings.map((w) => w.msg)).toEqual(['the invitation email could not be sent']);
    expect(warnings[0].error).toMatch(/rejected/);
    expect(logLines.join('\n')).not.toContain(token);

    // The link works: the invitee can look the invitation up.
    const lookup = await t.request.post('/api/invitations/lookup').set(t.headers()).send({ token });
    expect(lookup.status).toBe(200);
  });

  it('no SMTP server there: the invitation stands with emailed false', async () => {
    const t = await appSendingTo(await freePort());
    const { created, token, invitations } = await invite(t);
    expect(created.emailed).toBe(false);
    expect(invitations.map((i) => i.email)).toEqual([NEW]);
    expect(logLines.some((l) => JSON.parse(l).level === 40)).toBe(true);
    expect(logLines.join('\n')).not.toContain(token);
  });

  it('is off without both settings', () => {
    expect(
      invitationSenderFromSettings({ smtpUrl: undefined, emailFrom: FROM }, 'https://x.test'),
    ).toBe(undefined);
    expect(
      invitationSenderFromSettings(
        { smtpUrl: 'smtp://127.0.0.1:25', emailFrom: undefined },
        'https://x.test',
      ),
    ).toBe(undefined);
  });
});
