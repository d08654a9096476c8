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
  /** A message as it is written, MIME parts and all. */
  const sendRaw = (to: string, raw: string) =>
    transport.sendMail({ envelope: { from: 'ada@example.org', to }, raw });
  /** The error a refused send rejects with. */
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.unreachable('the message was accepted'),
      (error: NodemailerError) => error,
    );
  return { server, owners, delivered, logs, send, sendRaw, refusal };
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

  /** What a message may be made of (receipt-mail-server.ts), written out as the refusal says it. */
  const PARTS_MAX = 100;
  const PART_HEADER_MAX_BYTES = 64 * 1024;

  // A parsed header line costs mailparser some 115 bytes: within its own limits (1,000 parts,
  // 1 MB of header each) a 25 MB message of short header lines held 600 MB while parsed.
  // Counted here in parts and header lines, in messages far under the size limit.
  it('refuses with 552 a message of more parts or longer part headers than a receipt has, storing nothing', async () => {
    const { owners, delivered, sendRaw, refusal, logs } = await listener();
    const secret = newForwardingSecret();
    owners.set(secret, 'user-ada');
    const to = receiptAddress(secret, domain);
    const head = `From: ada@example.org\r\nTo: ${to}\r\nSubject: r\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n`;
    const part = (headerLines: number) =>
      `--b\r\nContent-Type: application/pdf\r\n${'X:y\r\n'.repeat(headerLines)}\r\n${pdf.toString('latin1')}\r\n`;
    const message = (parts: string[]) => `${head}${parts.join('')}--b--\r\n`;
    // Each line counts as 64 bytes: with its Content-Type line, the part's header is over 64 KB.
    const longHeader = PART_HEADER_MAX_BYTES / 64 + 1;
    for (const raw of [
      message(Array.from({ length: PARTS_MAX }, () => part(0))),
      message([part(longHeader)]),
    ]) {
      expect(raw.length).toBeLessThan(64 * 1024); // within the listener's size
      const error = await refusal(sendRaw(to, raw));
      expect(error.responseCode).toBe(552);
      expect(error.response).toMatch(/more than 100 parts or a part with a header over 64 KB/);
    }
    expect(delivered).toEqual([]);
    expect(
      logs.filter((l) => l.msg === 'receipt mail refused: too many parts or header lines'),
    ).toHaveLength(2);
    // One part fewer (the message itself is one), and a header just under its limit, are kept.
    await sendRaw(to, message(Array.from({ length: PARTS_MAX - 1 }, () => part(0))));
    await sendRaw(to, message([part(longHeader - 3)]));
    expect(delivered.map(([, files]) => files.length)).toEqual([PARTS_MAX - 1, 1]);
  });

  it('holds as many messages at once as it is told: one more is drained and answered 451', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = 0;
    let mostHeld = 0;
    const deliver = vi.fn(async () => {
      holding++;
      mostHeld = Math.max(mostHeld, holding);
      await held;
      holding--;
    });
    const { owners, send, refusal, logs } = await listener({ deliver, messagesAtOnce: 2 });
    const secret = newForwardingSecret();
    owners.set(secret, 'user-ada');
    const to = receiptAddress(secret, domain);
    const first = send(to, [{ filename: 'a.png', content: png }]);
    const second = send(to, [{ filename: 'b.png', content: png }]);
    try {
      await expect.poll(() => holding).toBe(2);
      let answered = false;
      const third = refusal(send(to, [{ filename: 'c.png', content: png }])).finally(() => {
        answered = true;
      });
      // Answered, or held beside the two: counted either way.
      await expect.poll(() => answered || holding > 2).toBe(true);
      expect(holding, 'messages held at once').toBe(2);
      const error = await third;
      expect(error.responseCode).toBe(451);
      expect(error.command).toBe('DATA');
      expect(
        logs.some((l) => l.msg === 'receipt mail deferred: as many messages as it holds at once'),
      ).toBe(true);
    } finally {
      release();
    }
    for (const info of await Promise.all([first, second])) expect(info.response).toMatch(/^250 /);
    expect(mostHeld).toBe(2);
    // Its slot given back, the next message is kept.
    await send(to, [{ filename: 'c.png', content: png }]);
    expect(deliver).toHaveBeenCalledTimes(3);
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
