import { setTimeout as sleep } from 'node:timers/promises';
import { type Clock, systemClock } from '../../core/clock';
import { type AlertMessage, renderAlert, safeAlert } from './alert-message';
import { deliveryIdSchema } from './delivery-id';
import { AttemptTimeout, post, retryAfterMs } from './webhook-post';
import { signatureFor } from './webhook-signature';
import { isRefusedAddress, type WebhookTarget } from './webhook-target';

export interface WebhookRetryPolicy {
  /** Tries in all, the first included. */
  maxAttempts: number;
  /** The first wait; each next one doubles, with jitter (half to all of it). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest `Retry-After` honoured; a longer one waits this long. */
  maxRetryAfterMs: number;
  /** One try, from connecting to the end of the answer. */
  attemptTimeoutMs: number;
}

export const defaultWebhookRetry: WebhookRetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
  attemptTimeoutMs: 10_000,
};

export interface WebhookDelivery {
  /** The idempotency key, sent as `Card-Console-Delivery` and the body's `id`. */
  id: string;
  alert: AlertMessage;
  /** When the queue created the delivery (ISO 8601); the same on every retry. */
  createdAt: string;
}

export type WebhookAttemptOutcome =
  | 'delivered'
  | 'status'
  | 'timeout'
  | 'network'
  | 'refused_address';

export interface WebhookAttempt {
  attempt: number;
  outcome: WebhookAttemptOutcome;
  status?: number;
  /** How long the sender waited after this try before the next one. */
  waitedMs?: number;
}

export interface WebhookDelivered {
  status: number;
  attempts: WebhookAttempt[];
}

export type WebhookFailure = 'rejected' | 'refused_address' | 'exhausted';

export class WebhookDeliveryError extends Error {
  readonly reason: WebhookFailure;
  /** Whether the queue should try the same delivery again later. */
  readonly retryable: boolean;
  readonly attempts: WebhookAttempt[];

  constructor(
    reason: WebhookFailure,
    message: string,
    attempts: WebhookAttempt[],
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = 'WebhookDeliveryError';
    this.reason = reason;
    this.retryable = reason === 'exhausted';
    this.attempts = attempts;
  }
}

const retryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

export interface WebhookSenderOptions {
  /** Makes the alert's link absolute. */
  publicOrigin: string;
  retry?: Partial<WebhookRetryPolicy>;
  clock?: Clock;
  /** [0, 1): the jitter's source; tests fix it. */
  random?: () => number;
}

export interface WebhookSender {
  /** Delivers one alert, retrying what may succeed later; throws `WebhookDeliveryError`. */
  send(
    target: WebhookTarget,
    delivery: WebhookDelivery,
    signal?: AbortSignal,
  ): Promise<WebhookDelivered>;
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const policy = { ...defaultWebhookRetry, ...options.retry };
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;

  const backoff = (attempt: number) => {
    const full = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(full / 2 + (random() * full) / 2);
  };

  return {
    async send(target, delivery, signal) {
      const id = deliveryIdSchema.parse(delivery.id);
      const rendered = renderAlert(delivery.alert, options.publicOrigin);
      const body = JSON.stringify({
        id,
        type: 'alert',
        createdAt: new Date(delivery.createdAt).toISOString(),
        text: rendered.chatText,
        alert: safeAlert(delivery.alert),
      });
      const attempts: WebhookAttempt[] = [];
      for (let attempt = 1; ; attempt++) {
        const timestamp = Math.floor(clock.now() / 1000);
        const headers = {
          'Content-Type': 'application/json',
          'User-Agent': 'Card-Console-Webhooks/1',
          'Card-Console-Delivery': id,
          'Card-Console-Timestamp': String(timestamp),
          'Card-Console-Signature': signatureFor(target.secret, timestamp, body),
        };
        let wait: number | undefined;
        let lastError: unknown;
        try {
          const answer = await post(target, body, headers, policy.attemptTimeoutMs, signal);
          if (answer.status >= 200 && answer.status < 300) {
            attempts.push({ attempt, outcome: 'delivered', status: answer.status });
            return { status: answer.status, attempts };
          }
          const record: WebhookAttempt = { attempt, outcome: 'status', status: answer.status };
          attempts.push(record);
          if (!retryableStatus(answer.status))
            throw new WebhookDeliveryError(
              'rejected',
              `the webhook answered ${answer.status}`,
              attempts,
            );
          const asked = retryAfterMs(answer.retryAfter, clock.now());
          wait = asked === undefined ? undefined : Math.min(asked, policy.maxRetryAfterMs);
        } catch (err) {
          if (err instanceof WebhookDeliveryError) throw err;
          if (signal?.aborted) throw err;
          if (isRefusedAddress(err)) {
            attempts.push({ attempt, outcome: 'refused_address' });
            throw new WebhookDeliveryError(
              'refused_address',
              'the webhook resolved to an address that is not allowed',
              attempts,
              err,
            );
          }
          attempts.push({
            attempt,
            outcome: err instanceof AttemptTimeout ? 'timeout' : 'network',
          });
          lastError = err;
        }
        if (attempt >= policy.maxAttempts)
          throw new WebhookDeliveryError(
            'exhausted',
            `the webhook was not delivered after ${attempt} tries`,
            attempts,
            lastError,
          );
        const delay = wait ?? backoff(attempt);
        (attempts.at(-1) as WebhookAttempt).waitedMs = delay;
        await sleep(delay, undefined, { signal });
      }
    },
  };
}
