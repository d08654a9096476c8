// The receipt mail listener on a free loopback port, spoken to by a real SMTP client (nodemailer).
import { connect } from 'node:net';
import nodemailer, { type NodemailerError } from 'nodemailer';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newForwardingSecret, receiptAddress } from './forwarding-secret';
import {
  parseReceiptAddress,
  type ReceiptMailOptions,
  startReceiptMailServer,
} from './receipt-mail-server';

const domain = 'in.example.test';
// A 1×1 PNG and a one-page PDF: what a forwarded receipt carries.
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const pdf = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

type Delivered = Parameters<ReceiptMailOptions['deliver']>;
const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function listener(overrides: Partial<ReceiptMailOptions> = {}) {
  const owners = new Map<string, string>();
  const delivered: Delivered[] = [];
  const logs: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) });
  const server = await startReceiptMailServer({
    host: '127.0.0.1',
    port: 0,
    domain,
    maxMessageBytes: 64 * 1024,
    maxFileBytes: 16 * 1024,
    messagesPerHourPerAddress: 60,
    connectionsPerMinutePerIp: 30,
    ownerOf: async (secret) => owners.get(secret),
    deliver: async (...args) => {
      delivered.push(args);
    },
    logger,
    ...overrides,
  });
  running.push(server);
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: server.port,
    secure: false,
    ignoreTLS: true,
  });
  const send = (to: string | string[], attachments: { filename: string; content: Buffer }[]) =>
    transport.sendMail({
      from: 'Ada <ada@example.org>',
      to,
      subject: 'Fwd: your receipt',
      text: 'Thanks for your order.',
      attachments,
    });
  /** The error a refused send rejects with. */
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.unreachable('the message was accepted'),
      (error: NodemailerError) => error,
    );
  return { server, owners, delivered, logs, send, refusal };
}

describe('the receipt mail listener', () => {
  it('hands a forwarded receipt’s attachments to the address’s owner', async () => {
    const { owners, delivered, send, logs } = await listener();
    const secret = newForwardingSecret();
    owners.set(secret, 'user-ada');
    const info = await send(receiptAddress(secret, domain), [
      { filename: 'receipt.png', content: png },
      { filename: 'invoice.pdf', content: pdf },
    ]);
    expect(info.response).toMatch(/^250 /);
    expect(delivered).toHaveLength(1);
    const [owner, files, meta] = delivered[0] ?? [];
    expect(owner).toBe('user-ada');
    expect(files?.map((f) => [f.fileName, f.contentType])).toEqual([
      ['receipt.png', 'image/png'],
      ['invoice.pdf', 'application/pdf'],
    ]);
    expect(files?.[0]?.bytes.equals(png)).toBe(true);
    expect(files?.[1]?.bytes.equals(pdf)).toBe(true);
    expect(meta).toEqual({ messageId: info.messageId, from: 'ada@example.org' });
    expect(JSON.stringify(logs)).not.toContain(secret);
  });

  it('refuses mail to an unknown address with 550, logs it without the secret, stores nothing', async () => {
    const { delivered, send, refusal, logs } = await listener();
    const secret = newForwardingSecret();
    const error = await refusal(
      send(receiptAddress(secret, domain), [{ filename: 'r.png', content: png }]),
    );
    expect(error.responseCode).toBe(550);
    expect(error.response).toMatch(/^550 5\.1\.1 No such recipient/);
    expect(delivered).toEqual([]);
    const refused = logs.find((l) => l.msg === 'receipt mail refused: unknown or rotated address');
    expect(refused).toMatchObject({ level: 30, ip: '127.0.0.1', recipient: expect.any(String) });
    expect(JSON.stringify(logs)).not.toContain(secret);
  });

  it('refuses a rotated address once its owner has a new one, and takes the new one', async () => {
    const { owners, delivered, send, refusal, logs } = await listener();
    const old = newForwardingSecret();
    owners.set(old, 'user-ada');
    await send(receiptAddress(old, domain), [{ filename: 'r.png', content: png }]);
    owners.delete(old);
    const current = newForwardingSecret();
    owners.set(current, 'user-ada');

    const error = await refusal(
      send(receiptAddress(old, domain), [{ filename: 'r.png', content: png }]),
    );
    expect(error.responseCode).toBe(550);
    await send(receiptAddress(current, domain), [{ filename: 'r.pdf', content: pdf }]);
    expect(delivered.map(([owner, files]) => [owner, files[0]?.fileName])).toEqual([
      ['user-ada', 'r.png'],
      ['user-ada', 'r.pdf'],
    ]);
    expect(logs.some((l) => l.msg === 'receipt mail refused: unknown or rotated address')).toBe(
      true,
    );
    expect(JSON.stringify(logs)).not.toContain(old);
  });

  it('refuses an address that is not a receipts address', async () => {
    const { delivered, send, refusal } = await listener();
    for (const to of [
      'postmaster@in.example.test',
      `receipts+${newForwardingSecret()}@elsewhere.test`,
    ]) {
      const error = await refusal(send(to, [{ filename: 'r.png', content: png }]));
      expect(error.responseCode).toBe(550);
    }
    expect(delivered).toEqual([]);
  });

  it('advertises its size limit and refuses a larger message with 552, storing nothing', async () => {
    const { server, owners, delivered, send, refusal } = await listener();
    const secret = newForwardingSecret();
    owners.set(secret, 'user-ada');
    const capabilities = await ehlo(server.port);
    expect(capabilities).toMatch(/^250[- ]SIZE 65536\r$/m);
    // It receives mail and relays none: nothing to sign in to; no TLS without a certificate.
    expect(capabilities).not.toMatch(/AUTH|STARTTLS/);
    const big = Buffer.alloc(80 * 1024, 7);
    const error = await refusal(
      send(receiptAddress(secret, domain), [{ filename: 'big.pdf', content: big }]),
    );
    expect(error.responseCode).toBe(552);
    expect(error.command).toBe('DATA'); // the whole message was sent, and refused at its end
    expect(delivered).toEqual([]);
  });

  it('skips an attachment over the file limit and keeps the others', async () => {
    const { owners, delivered, send, logs } = await listener();
    const secret = newForwardingSecret();
    owners.set(secret, 'user-ada');
    await send(receiptAddress(secret, domain), [
      { filename: 'scan.png', content: Buffer.alloc(20 * 1024, 1) },
      { filename: 'receipt.pdf', content: pdf },
    ]);
    expect(delivered[0]?.[1].map((f) => f.fileName)).toEqual(['receipt.pdf']);
    expect(
      logs.some((l) => l.msg === 'receipt mail: an attachment over the file limit was skipped'),
    ).toBe(true);
  });

  it('defers the message past the hourly limit of an address with a 4xx', async () => {
    const { owners, delivered, send, refusal } = await listener({ messagesPerHourPerAddress: 2 });
    const secret = newForwardingSecret();
    owners.set(secret, 'user-ada');
    const to = receiptAddress(secret, domain);
    await send(to, [{ filename: 'a.png', content: png }]);
    await send(to, [{ filename: 'b.png', content: png }]);
    const error = await refusal(send(to, [{ filename: 'c.png', content: png }]));
    expect(error.responseCode).toBe(450);
    expect(delivered).toHaveLength(2);
  });

  it('answers 451 when the inbox cannot take the files, so the sender retries', async () => {
    const deliver = vi.fn(async () => {
      throw new Error('the database is away');
    });
    const { owners, send, refusal } = await listener({ deliver });
    const secret = newForwardingSecret();
    owners.set(secret, 'user-ada');
    const error = await refusal(
      send(receiptAddress(secret, domain), [{ filename: 'r.png', content: png }]),
    );
    expect(error.responseCode).toBe(451);
    expect(deliver).toHaveBeenCalledOnce();
  });

  it('accepts a message without attachments and delivers nothing', async () => {
    const { owners, delivered, send, logs } = await listener();
    const secret = newForwardingSecret();
    owners.set(secret, 'user-ada');
    const info = await send(receiptAddress(secret, domain), []);
    expect(info.response).toMatch(/^250 /);
    expect(delivered).toEqual([]);
    expect(logs.some((l) => l.msg === 'receipt mail accepted: nothing to keep')).toBe(true);
  });

  it('takes one person per message: a second address gets 452 and must be sent again', async () => {
    const { owners, delivered, send } = await listener();
    const ada = newForwardingSecret();
    const bob = newForwardingSecret();
    owners.set(ada, 'user-ada');
    owners.set(bob, 'user-bob');
    const info = await send(
      [receiptAddress(ada, domain), receiptAddress(bob, domain)],
      [{ filename: 'r.png', content: png }],
    );
    expect(info.accepted).toEqual([receiptAddress(ada, domain)]);
    expect(info.rejected).toEqual([receiptAddress(bob, domain)]);
    expect(info.rejectedErrors?.[0]?.responseCode).toBe(452);
    expect(delivered.map(([owner]) => owner)).toEqual(['user-ada']);
  });

  it('refuses connections past the per-IP limit with 421', async () => {
    const { server } = await listener({ connectionsPerMinutePerIp: 2 });
    await ehlo(server.port);
    await ehlo(server.port);
    expect(await greeting(server.port)).toMatch(/^421 /);
  });
});

describe('parseReceiptAddress', () => {
  const secret = 'Ab-_0123456789xyzAB';
  it.each([
    [`receipts+${secret}@${domain}`, secret],
    [`RECEIPTS+${secret}@IN.Example.TEST`, secret],
    [`receipts+${'a'.repeat(64)}@${domain}`, 'a'.repeat(64)],
    [`receipts+${'a'.repeat(15)}@${domain}`, undefined],
    [`receipts+${'a'.repeat(65)}@${domain}`, undefined],
    [`receipts+${secret}@other.test`, undefined],
    [`receipts+${secret}@sub.${domain}`, undefined],
    [`receipt+${secret}@${domain}`, undefined],
    [`receipts-${secret}@${domain}`, undefined],
    [`receipts+${secret}.x@${domain}`, undefined],
    [`receipts+${secret}`, undefined],
    [`x.receipts+${secret}@${domain}`, undefined],
  ])('%s → %s', (address, expected) => {
    expect(parseReceiptAddress(address, domain)).toBe(expected);
  });

  it('keeps the secret’s case', () => {
    expect(parseReceiptAddress(`receipts+${secret}@${domain}`, domain)).not.toBe(
      secret.toLowerCase(),
    );
  });

  it('reads the addresses it makes', () => {
    const made = newForwardingSecret();
    expect(made).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(parseReceiptAddress(receiptAddress(made, domain), domain)).toBe(made);
  });
});

/** The server's first line, then QUIT. */
function greeting(port: number): Promise<string> {
  return dialogue(port, []);
}

/** The server's answer to EHLO. */
function ehlo(port: number): Promise<string> {
  return dialogue(port, ['EHLO client.test']);
}

function dialogue(port: number, commands: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let sent = 0;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      // A reply is complete once its last line has a space after the code.
      if (!/(^|\r\n)\d{3} [^\r\n]*\r\n$/.test(text)) return;
      const next = commands[sent++];
      if (next === undefined || text.startsWith('421')) {
        socket.end('QUIT\r\n');
        resolve(text);
      } else socket.write(`${next}\r\n`);
    });
    socket.on('error', reject);
  });
}
