// A real SMTP server (smtp-server) on a free loopback port that keeps every message it
// accepts, parsed by mailparser: what a test asserts an email delivery sent.
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from './engines/free-port';

export interface CapturedMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  messageId: string | undefined;
}

export async function startSmtpCapture() {
  const mails: CapturedMail[] = [];
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
          });
          callback();
        })
        .catch(callback);
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    mails,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The sender of the alert emails the app's tests capture. */
export const CAPTURED_FROM = 'Card Console <alerts@console.example.test>';

/**
 * The app's alert delivery by email to a capture at `smtpUrl`, as a test of the whole app sets
 * it: webhooks to public https addresses only, three attempts from a minute apart, the outbox
 * polled each minute, an attempt given 5 s.
 */
export const captureDelivery = (smtpUrl: string) => ({
  smtpUrl,
  emailFrom: CAPTURED_FROM,
  webhook: { allowInsecure: false, allowPrivate: false },
  maxAttempts: 3,
  retryBaseMs: 60_000,
  pollMs: 60_000,
  timeoutMs: 5_000,
});
