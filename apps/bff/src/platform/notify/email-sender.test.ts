import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../test/engines/free-port';
import { testPan } from '../../test/test-pan';
import { findCardNumbers } from '../security/card-numbers';
import type { TransactionAlertMessage } from './alert-message';
import { messageIdFor } from './delivery-id';
import { createEmailSender, type EmailDeliveryError, type EmailSender } from './email-sender';

const pan = testPan(1_234_567);
const last4 = pan.slice(-4);
/** The number in groups of four, as people write it. */
const grouped = (separator: string) => (pan.match(/\d{4}/g) ?? []).join(separator);
const origin = 'https://console.example.com';

const sampleAlert = (): TransactionAlertMessage => ({
  ruleName: 'Declines',
  kind: 'transaction_declined',
  transactionId: 'txn_01',
  subAccount: { id: 'sa_1', name: 'Marketing' },
  card: { name: 'Ads card', lastFour: '4242' },
  merchant: `SHOP ${pan} LTD`,
  description: `paid with ${grouped(' ')}`,
  amount: { cents: 12_345, currency: 'USD' },
  status: 'declined',
  declineReason: `card ${grouped('-')} blocked`,
  occurredAt: '2026-11-27T05:20:13.000Z',
  linkPath: '/transactions/txn_01?subAccountId=sa_1',
});

interface Received {
  raw: string;
  from: string | undefined;
  to: string[];
}

/** A real SMTP server on a loopback port that keeps every message it accepts. */
async function startSmtp(options: { rejectRecipients?: boolean } = {}) {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!options.rejectRecipients) return callback();
      const err = Object.assign(new Error('no such mailbox'), { responseCode: 550 });
      callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          raw: Buffer.concat(chunks).toString('utf8'),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
        });
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function sender(port: number, timeouts = {}): EmailSender {
  const s = createEmailSender({
    smtp: `smtp://127.0.0.1:${port}`,
    from: 'Card Console <alerts@console.example.com>',
    publicOrigin: origin,
    timeouts,
  });
  cleanups.push(() => s.close());
  return s;
}

describe('the email sender', () => {
  it('sends one alert as exactly one message with text and HTML parts, and no card number', async () => {
    const smtp = await startSmtp();
    cleanups.push(smtp.close);
    const id = 'rule_7:txn_01';

    const sent = await sender(smtp.port).send({
      id,
      to: ['finance@example.com'],
      alert: sampleAlert(),
    });

    expect(smtp.received).toHaveLength(1);
    const [message] = smtp.received as [Received];
    expect(message.from).toBe('alerts@console.example.com');
    expect(message.to).toEqual(['finance@example.com']);
    const mail = await simpleParser(message.raw);
    expect(mail.subject).toBe(
      `[Card Console] Declined transaction: $123.45 at SHOP •••• ${last4} LTD on card •••• 4242`,
    );
    expect(mail.messageId).toBe(messageIdFor(id, 'console.example.com'));
    expect(sent.messageId).toBe(mail.messageId);
    expect(sent.accepted).toEqual(['finance@example.com']);
    expect(mail.headers.get('card-console-delivery')).toBe(id);
    expect(mail.text).toContain(`Merchant: SHOP •••• ${last4} LTD`);
    expect(mail.text).toContain(
      'https://console.example.com/transactions/txn_01?subAccountId=sa_1',
    );
    expect(mail.html).toContain(`SHOP •••• ${last4} LTD`);
    expect(mail.html).toContain(
      'href="https://console.example.com/transactions/txn_01?subAccountId=sa_1"',
    );

    // Decoded parts and every header, and the raw message as it went over the wire.
    const headerText = [...mail.headers.values()].map((v) => JSON.stringify(v)).join('\n');
    for (const text of [message.raw, mail.text ?? '', String(mail.html), headerText]) {
      expect(findCardNumbers(text)).toEqual([]);
      expect(text).not.toContain(pan.slice(0, 8));
      expect(text).not.toContain(grouped(' ').slice(0, 9));
    }
  });

  it('gives a resent delivery the same Message-ID, and another delivery another one', async () => {
    const smtp = await startSmtp();
    cleanups.push(smtp.close);
    const s = sender(smtp.port);
    const to = ['finance@example.com'];
    await s.send({ id: 'rule_7:txn_01', to, alert: sampleAlert() });
    await s.send({ id: 'rule_7:txn_01', to, alert: sampleAlert() });
    await s.send({ id: 'rule_7:txn_02', to, alert: sampleAlert() });
    const ids = await Promise.all(
      smtp.received.map(async (m) => (await simpleParser(m.raw)).messageId),
    );
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it('when nothing listens on the port, fails as unreachable, retryable, at once', async () => {
    const port = await freePort();
    const started = Date.now();
    const error = await sender(port, { connectionMs: 2_000 })
      .send({ id: 'rule_7:txn_01', to: ['finance@example.com'], alert: sampleAlert() })
      .then(
        () => undefined,
        (err: EmailDeliveryError) => err,
      );
    expect(error?.name).toBe('EmailDeliveryError');
    expect(error?.reason).toBe('unreachable');
    expect(error?.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('when the server accepts the connection but never greets, gives up after the greeting timeout', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise((r) => silent.close(r));
    });
    const address = silent.address();
    const port = typeof address === 'object' && address ? address.port : 0;

    const started = Date.now();
    const error = await sender(port, { greetingMs: 300 })
      .send({ id: 'rule_7:txn_01', to: ['finance@example.com'], alert: sampleAlert() })
      .then(
        () => undefined,
        (err: EmailDeliveryError) => err,
      );
    const elapsed = Date.now() - started;
    expect(error?.reason).toBe('timeout');
    expect(error?.retryable).toBe(true);
    expect(sockets.size).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(3_000);
  });

  it('when the server refuses the recipient for good (550), fails as rejected, not retryable', async () => {
    const smtp = await startSmtp({ rejectRecipients: true });
    cleanups.push(smtp.close);
    const error = await sender(smtp.port)
      .send({ id: 'rule_7:txn_01', to: ['nobody@example.com'], alert: sampleAlert() })
      .then(
        () => undefined,
        (err: EmailDeliveryError) => err,
      );
    expect(error?.reason).toBe('rejected');
    expect(error?.retryable).toBe(false);
    expect(error?.smtpCode).toBe(550);
    expect(smtp.received).toHaveLength(0);
  });

  it('keeps the subject and the text’s first line one line when a merchant name or a rendered subject holds breaks', async () => {
    const smtp = await startSmtp();
    cleanups.push(smtp.close);
    const s = sender(smtp.port);
    const merchant = 'ACME\r\nBcc: x@evil.test\u2028Line\u2029Para\u0085Next';
    await s.send({
      id: 'rule_7:txn_02',
      to: ['finance@example.com'],
      alert: { ...sampleAlert(), merchant },
    });
    await s.sendRendered({
      id: 'digest.rule_7.2026-11-27',
      to: ['finance@example.com'],
      subject: 'Digest\rBcc: x@evil.test\u2028Line\u0085Next',
      text: 'body',
      html: '<p>body</p>',
    });
    const [alert, rendered] = await Promise.all(
      smtp.received.map((message) => simpleParser(message.raw)),
    );
    const first =
      'Declined transaction: $123.45 at ACME Bcc: x@evil.test Line Para Next on card •••• 4242';
    expect(alert?.subject).toBe(`[Card Console] ${first}`);
    expect(alert?.text?.split('\n')[0]).toBe(first);
    expect(alert?.headers.has('bcc')).toBe(false);
    expect(rendered?.subject).toBe('Digest Bcc: x@evil.test Line Next');
    expect(rendered?.headers.has('bcc')).toBe(false);
  });
});
