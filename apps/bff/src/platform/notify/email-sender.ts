import nodemailer, { type NodemailerError, type SMTPTransportOptions } from 'nodemailer';
import { maskCardNumbers } from '../security/card-numbers';
import type { AlertMessage } from './alert-message';
import { oneLine, renderAlert } from './alert-message';
import { deliveryIdSchema, messageIdFor } from './delivery-id';

/** Why a message did not go out, and whether sending the same message later can succeed. */
export type EmailFailure =
  /** Nothing answered: refused, reset, or the name did not resolve. */
  | 'unreachable'
  /** Connecting, the greeting or a reply took longer than its timeout. */
  | 'timeout'
  /** The server refused our credentials, or wanted some we do not have. */
  | 'auth'
  /** TLS could not be set up (a certificate, or STARTTLS required and not offered). */
  | 'tls'
  /** The server answered 5xx: it will refuse the same message again. */
  | 'rejected'
  /** The server answered 4xx (or 503): try again later. */
  | 'deferred'
  | 'failed';

const retryableFailures: ReadonlySet<EmailFailure> = new Set([
  'unreachable',
  'timeout',
  'deferred',
  'failed',
]);

/** The one error an email delivery throws; the SMTP server's own words stay in `cause`. */
export class EmailDeliveryError extends Error {
  readonly reason: EmailFailure;
  /** Whether the queue should try the same delivery again later. */
  readonly retryable: boolean;
  readonly smtpCode: number | undefined;

  constructor(
    reason: EmailFailure,
    message: string,
    options: { cause?: unknown; smtpCode?: number },
  ) {
    super(message, { cause: options.cause });
    this.name = 'EmailDeliveryError';
    this.reason = reason;
    this.retryable = retryableFailures.has(reason);
    this.smtpCode = options.smtpCode;
  }
}

function classify(err: NodemailerError): EmailFailure {
  if (err.code === 'ETIMEDOUT') return 'timeout';
  if (err.code === 'EAUTH' || err.code === 'ENOAUTH') return 'auth';
  if (err.code === 'ETLS' || err.code === 'EREQUIRETLS') return 'tls';
  if (err.responseCode !== undefined) return err.permanent ? 'rejected' : 'deferred';
  if (err.code === 'EDNS' || err.code === 'ECONNECTION' || err.code === 'ESOCKET')
    return 'unreachable';
  return 'failed';
}

function translate(err: unknown): EmailDeliveryError {
  const e = (err ?? {}) as NodemailerError;
  const reason = classify(e);
  const words: Record<EmailFailure, string> = {
    unreachable: 'the SMTP server could not be reached',
    timeout: 'the SMTP server did not answer in time',
    auth: 'the SMTP server refused the credentials',
    tls: 'a TLS connection to the SMTP server could not be set up',
    rejected: 'the SMTP server rejected the message',
    deferred: 'the SMTP server deferred the message',
    failed: 'the email could not be sent',
  };
  return new EmailDeliveryError(reason, words[reason], { cause: err, smtpCode: e.responseCode });
}

export interface EmailTimeouts {
  /** Establishing the TCP (and TLS) connection. */
  connectionMs: number;
  /** From connecting to the server's greeting. */
  greetingMs: number;
  /** Silence on an open connection. */
  socketMs: number;
  /** Resolving the server's name. */
  dnsMs: number;
}

export const defaultEmailTimeouts: EmailTimeouts = {
  connectionMs: 10_000,
  greetingMs: 10_000,
  socketMs: 30_000,
  dnsMs: 10_000,
};

export interface EmailSenderOptions {
  /** `smtp://user:pass@host:587`, `smtps://…:465`, or nodemailer's SMTP options. */
  smtp: string | SMTPTransportOptions;
  /** The From address, e.g. `Card Console <alerts@example.com>`. */
  from: string;
  /** Makes the alert's link absolute (`https://console.example.com`). */
  publicOrigin: string;
  timeouts?: Partial<EmailTimeouts>;
}

export interface EmailDelivery {
  /** The idempotency key; the Message-ID is derived from it. */
  id: string;
  to: readonly string[];
  alert: AlertMessage;
}

export interface EmailSent {
  messageId: string;
  accepted: string[];
  rejected: string[];
}

/** A message rendered by the caller (a daily digest), masked here once more. */
export interface RenderedEmail {
  id: string;
  to: readonly string[];
  subject: string;
  text: string;
  html: string;
}

export interface EmailSender {
  /** Sends one message (text and HTML parts); throws `EmailDeliveryError`. */
  send(delivery: EmailDelivery): Promise<EmailSent>;
  /** Sends a message already rendered; throws `EmailDeliveryError`. */
  sendRendered(message: RenderedEmail): Promise<EmailSent>;
  close(): void;
}

const addressText = (a: string | { address: string }) => (typeof a === 'string' ? a : a.address);

/** The domain Message-IDs are made in: the From address's. */
function domainOf(from: string): string {
  const match = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from);
  if (!match?.[1]) throw new RangeError('the From address needs a domain');
  return match[1].toLowerCase();
}

export function createEmailSender(options: EmailSenderOptions): EmailSender {
  const t = { ...defaultEmailTimeouts, ...options.timeouts };
  const timeouts = {
    connectionTimeout: t.connectionMs,
    greetingTimeout: t.greetingMs,
    socketTimeout: t.socketMs,
    dnsTimeout: t.dnsMs,
  };
  const transportOptions: SMTPTransportOptions =
    typeof options.smtp === 'string'
      ? { ...timeouts, url: options.smtp }
      : { ...timeouts, ...options.smtp };
  const transport = nodemailer.createTransport(transportOptions);
  const domain = domainOf(options.from);

  async function sendMessage(message: RenderedEmail): Promise<EmailSent> {
    const id = deliveryIdSchema.parse(message.id);
    if (message.to.length === 0) throw new RangeError('an email needs a recipient');
    const messageId = messageIdFor(id, domain);
    try {
      const info = await transport.sendMail({
        from: options.from,
        to: [...message.to],
        subject: message.subject,
        text: message.text,
        html: message.html,
        messageId,
        headers: { 'Card-Console-Delivery': id },
      });
      return {
        messageId: info.messageId,
        accepted: info.accepted.map(addressText),
        rejected: info.rejected.map(addressText),
      };
    } catch (err) {
      throw translate(err);
    }
  }

  return {
    send(delivery) {
      const rendered = renderAlert(delivery.alert, options.publicOrigin);
      return sendMessage({ id: delivery.id, to: delivery.to, ...rendered });
    },
    sendRendered(message) {
      return sendMessage({
        ...message,
        subject: maskCardNumbers(oneLine(message.subject)),
        text: maskCardNumbers(message.text),
        html: maskCardNumbers(message.html),
      });
    },
    close() {
      transport.close();
    },
  };
}
