// Receipts by email (issue 47, "Email in"): the product's own SMTP listener, off by default.
// Each person forwards receipts to a private address, receipts+<secret>@<domain> (the secret,
// not the From header, which anyone can forge, says whose inbox a message is for); every
// attachment of an accepted message goes to that person's inbox.
//
// What an operator sets: RECEIPT_MAIL_PORT and RECEIPT_MAIL_DOMAIN (both, or no listener),
// RECEIPT_MAIL_HOST, and the limits (docs/configuration.md, "Receipts by email"; env.ts reads
// them, nothing here reads process.env). Each attachment is at most a receipt's 10 MB. TLS
// (`tls`) is there for a caller that has a certificate; the deployment puts a relay in front.
//
// SMTP replies: an address that is not a receipts address, or whose secret no one has (unknown
// or rotated), 550 5.1.1 at RCPT, logged with a fingerprint of the secret, never the secret.
// One person per message: a RCPT to a second, different address gets 452 4.5.3, which tells the
// sender to send the message to that address in a transaction of its own (RFC 5321 §4.5.3.1.10),
// so each person still gets it once. No AUTH: this receives mail like an MX, it relays nothing.
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { RECEIPT_MAX_BYTES } from '@card-console/shared/api/notes';
import { type Attachment, simpleParser } from 'mailparser';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import {
  SMTPServer,
  type SMTPServerAddress,
  type SMTPServerDataStream,
  type SMTPServerSession,
} from 'smtp-server';
import { RateLimiterRes } from '../../../platform/security/rate-limiter-classes';
import {
  memoryRateLimiters,
  type RateLimiterFactory,
} from '../../../platform/security/rate-limits';
import type { ReceiptInboxService } from '../inbox-service';

export interface ReceiptMailFile {
  /** The attachment's own name, when it has one. */
  fileName: string | undefined;
  /** As the message declares it; only the bytes say what a file really is. */
  contentType: string;
  bytes: Buffer;
}

export interface ReceiptMailOptions {
  /** Bind address, e.g. '127.0.0.1' or '0.0.0.0'. */
  host: string;
  /** 0 for a free port (tests). */
  port: number;
  /** The addresses' domain: receipts+<secret>@<domain>. */
  domain: string;
  /** Advertised as SIZE and enforced: a larger message gets 552 and nothing is stored. */
  maxMessageBytes: number;
  /** Per attachment: a larger one is skipped and logged; the message is still accepted. */
  maxFileBytes: number;
  /** Messages per recipient address an hour; over it, a temporary 450. */
  messagesPerHourPerAddress: number;
  /** Connections per client IP a minute; over it, 421 at connect. */
  connectionsPerMinutePerIp: number;
  /**
   * Messages this process holds at once, from their DATA to their answer (read, parsed, handed
   * to the inbox); another is drained without being kept and answered 451. Default
   * MESSAGES_AT_ONCE.
   */
  messagesAtOnce?: number;
  /** The person an address's secret belongs to, or undefined (unknown or rotated). */
  ownerOf(secret: string): Promise<string | undefined>;
  /** Hands a person the files of one message, every attachment (inline pictures too). */
  deliver(
    owner: string,
    files: ReceiptMailFile[],
    meta: { messageId?: string; from?: string },
  ): Promise<void>;
  logger: Logger;
  /** STARTTLS with this certificate; without it STARTTLS is not offered. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Where the counters live; in process by default (`sqlRateLimiters` shares them). */
  rateLimiters?: RateLimiterFactory;
}

/**
 * What one message may be made of, past its size: a parsed header line costs the parser some
 * 115 bytes (a 25 MB message of 5-byte header lines in 1,000 parts, mailparser's own limits, held
 * 600 MB while parsed; within these, 150 MB at most, about six times the message). A forwarded
 * receipt has a few dozen parts and a few KB of headers in each.
 */
export const MAIL_PARTS_MAX = 100;
/** The header of one part (the message's own too), each line counted as 64 bytes at least. */
export const MAIL_PART_HEADER_MAX_BYTES = 64 * 1024;
/** Messages one BFF process reads and keeps at once (each up to its size, six times parsed). */
export const MESSAGES_AT_ONCE = 2;

const receiptLocalPart = /^receipts\+([A-Za-z0-9_-]{16,64})$/i;

/** The secret of receipts+<secret>@<domain>, or undefined for any other address. */
export function parseReceiptAddress(address: string, domain: string): string | undefined {
  const at = address.lastIndexOf('@');
  if (at < 0 || address.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return undefined;
  return receiptLocalPart.exec(address.slice(0, at))?.[1];
}

/** What the logs say instead of a secret or an address: enough to match, not to use. */
function fingerprint(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 12);
}

function smtpError(responseCode: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode });
}

/**
 * Reads a whole message, keeping no bytes once it passes `maxBytes` (but draining the rest);
 * with `maxBytes` -1, drains it all and keeps nothing.
 */
function readCapped(stream: SMTPServerDataStream, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let length = 0;
    stream.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > maxBytes) chunks = [];
      else chunks.push(chunk);
    });
    stream.once('error', reject);
    stream.once('end', () =>
      resolve(length > maxBytes || stream.sizeExceeded ? undefined : Buffer.concat(chunks)),
    );
  });
}

/** Spends a point: 'ok', 'limited', or 'failed' when the limiter's store does not answer. */
async function spend(limiter: RateLimiterAbstract, key: string, logger: Logger) {
  try {
    await limiter.consume(key);
    return 'ok';
  } catch (error) {
    if (error instanceof RateLimiterRes) return 'limited';
    logger.error({ err: error }, 'receipt mail rate limiter failed');
    return 'failed';
  }
}

interface Recipient {
  secret: string;
  owner: string;
}

export async function startReceiptMailServer(
  options: ReceiptMailOptions,
): Promise<{ port: number; close(): Promise<void> }> {
  const { logger, domain } = options;
  const factory = options.rateLimiters ?? memoryRateLimiters;
  const perIp = factory({
    keyPrefix: 'receipt-mail-ip',
    points: options.connectionsPerMinutePerIp,
    duration: 60,
  });
  const perAddress = factory({
    keyPrefix: 'receipt-mail-address',
    points: options.messagesPerHourPerAddress,
    duration: 3600,
  });
  // The person each accepted RCPT resolved to; smtp-server keeps that same object in the envelope.
  const recipients = new WeakMap<SMTPServerAddress, Recipient>();
  const messagesAtOnce = options.messagesAtOnce ?? MESSAGES_AT_ONCE;
  let messagesHeld = 0;

  async function acceptRecipient(address: SMTPServerAddress, session: SMTPServerSession) {
    const ip = session.remoteAddress;
    const secret = parseReceiptAddress(address.address, domain);
    const owner = secret === undefined ? undefined : await options.ownerOf(secret);
    if (secret === undefined || owner === undefined) {
      logger.info(
        { ip, recipient: fingerprint(secret ?? address.address.toLowerCase()), known: false },
        secret === undefined
          ? 'receipt mail refused: not a receipts address'
          : 'receipt mail refused: unknown or rotated address',
      );
      throw smtpError(550, 'No such recipient');
    }
    const earlier = session.envelope.rcptTo.map((r) => recipients.get(r));
    if (earlier.some((r) => r?.secret === secret)) return { secret, owner };
    if (earlier.length > 0) throw smtpError(452, 'One recipient per message, send it again');
    const spent = await spend(perAddress, fingerprint(secret), logger);
    if (spent === 'failed') throw smtpError(451, 'Local error, try again later');
    if (spent === 'limited') {
      logger.warn({ ip, owner }, 'receipt mail deferred: address over its hourly limit');
      throw smtpError(450, 'Too many messages for this address, try again later');
    }
    return { secret, owner };
  }

  /**
   * A message, held as one of `messagesAtOnce`: each holds its bytes and, while parsed, some six
   * times them. One past them is drained, nothing kept, and answered 451: its server sends it
   * again.
   */
  async function receive(stream: SMTPServerDataStream, session: SMTPServerSession) {
    if (messagesHeld >= messagesAtOnce) {
      await readCapped(stream, -1);
      logger.warn(
        { messagesAtOnce },
        'receipt mail deferred: as many messages as it holds at once',
      );
      throw smtpError(451, 'Too many messages at once, try again later');
    }
    messagesHeld++;
    try {
      await receiveHeld(stream, session);
    } finally {
      messagesHeld--;
    }
  }

  async function receiveHeld(stream: SMTPServerDataStream, session: SMTPServerSession) {
    const rcpt = session.envelope.rcptTo[0];
    const recipient = rcpt && recipients.get(rcpt);
    const bytes = await readCapped(stream, options.maxMessageBytes);
    if (!recipient) throw smtpError(503, 'Need a recipient');
    const { owner } = recipient;
    if (!bytes) {
      logger.info({ owner, limit: options.maxMessageBytes }, 'receipt mail refused: too large');
      throw smtpError(552, `Message exceeds fixed maximum message size ${options.maxMessageBytes}`);
    }
    const parsed = await simpleParser(bytes, {
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipTextLinks: true,
      skipImageLinks: true,
      maxChildNodes: MAIL_PARTS_MAX,
      maxHeadSize: MAIL_PART_HEADER_MAX_BYTES,
    }).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === 'EMAXLEN') {
        logger.info({ owner, err: error }, 'receipt mail refused: too many parts or header lines');
        throw smtpError(
          552,
          `Message has more than ${MAIL_PARTS_MAX} parts or a part with a header over ${MAIL_PART_HEADER_MAX_BYTES / 1024} KB`,
        );
      }
      logger.warn({ owner, err: error }, 'receipt mail refused: the message could not be read');
      throw smtpError(554, 'The message could not be read');
    });
    const fits = (a: Attachment) => a.content.length <= options.maxFileBytes;
    for (const skipped of parsed.attachments.filter((a) => !fits(a))) {
      logger.info(
        { owner, bytes: skipped.content.length, limit: options.maxFileBytes },
        'receipt mail: an attachment over the file limit was skipped',
      );
    }
    const files = parsed.attachments.filter(fits).map((a) => ({
      fileName: a.filename,
      contentType: a.contentType,
      bytes: a.content,
    }));
    const messageId = parsed.messageId;
    if (files.length === 0) {
      logger.info({ owner, messageId }, 'receipt mail accepted: nothing to keep');
      return;
    }
    const mailFrom = session.envelope.mailFrom;
    const from = parsed.from?.value[0]?.address || (mailFrom ? mailFrom.address : '') || undefined;
    try {
      await options.deliver(owner, files, { messageId, from });
    } catch (error) {
      logger.error({ owner, messageId, err: error }, 'receipt mail could not be delivered');
      throw smtpError(451, 'Could not store the message, try again later');
    }
    logger.info({ owner, messageId, files: files.length }, 'receipt mail delivered');
  }

  const server = new SMTPServer({
    name: domain,
    // smtp-server's own log would hold every RCPT address, so every secret: it stays off.
    logger: false,
    authOptional: true,
    disabledCommands: options.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    size: options.maxMessageBytes,
    rejectOversized: true,
    hideENHANCEDSTATUSCODES: false,
    disableReverseLookup: true,
    closeTimeout: 10_000,
    onConnect(session, callback) {
      spend(perIp, session.remoteAddress, logger).then((spent) => {
        if (spent === 'ok') return callback();
        if (spent === 'limited')
          logger.warn({ ip: session.remoteAddress }, 'receipt mail: too many connections');
        callback(smtpError(421, 'Too many connections, try again later'));
      }, callback);
    },
    onRcptTo(address, session, callback) {
      acceptRecipient(address, session).then((recipient) => {
        recipients.set(address, recipient);
        callback();
      }, callback);
    },
    onData(stream, session, callback) {
      receive(stream, session).then(
        () => callback(null, 'Received'),
        (error: Error & { responseCode?: number }) => {
          if (error.responseCode) return callback(error);
          logger.error({ err: error }, 'receipt mail failed');
          callback(smtpError(451, 'Local error, try again later'));
        },
      );
    },
  });
  // A client's socket error reaches the server's 'error' event: logged, never a crash.
  server.on('error', (error: NodeJS.ErrnoException) => {
    logger.warn({ code: error.code }, 'receipt mail connection error');
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;
  logger.info({ host: options.host, port, domain }, 'receipt mail listening');
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * The listener as the BFF runs it (server.ts, and tests of the whole app): its settings from the
 * configuration, each message's files into the recipient's inbox.
 */
export function startReceiptMail(
  settings: Omit<
    ReceiptMailOptions,
    'maxFileBytes' | 'ownerOf' | 'deliver' | 'logger' | 'rateLimiters'
  >,
  inbox: Pick<ReceiptInboxService, 'ownerOf' | 'receiveMail'>,
  logger: Logger,
  rateLimiters?: RateLimiterFactory,
): Promise<{ port: number; close(): Promise<void> }> {
  return startReceiptMailServer({
    ...settings,
    maxFileBytes: RECEIPT_MAX_BYTES,
    ownerOf: (secret) => inbox.ownerOf(secret),
    deliver: (owner, files, meta) => inbox.receiveMail(owner, files, meta),
    logger,
    ...(rateLimiters ? { rateLimiters } : {}),
  });
}
