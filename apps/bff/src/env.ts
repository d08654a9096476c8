// The one place that reads configuration. `loadConfig` is pure (it takes the environment as
// an argument) so tests can build any configuration; only index.ts passes `process.env`.
import { createHash, randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LARGE_MAXIMUM_CENTS } from '@card-console/shared/api/cards';
import type { Role } from '@card-console/shared/api/meta';
import { z } from 'zod';
import type { TotpKeys } from './platform/security/totp-secret-box';

const bffDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(bffDir, '..', '..');

const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);
const optionalString = z.preprocess(emptyAsUndefined, z.string().min(1).optional());

const portSchema = z.preprocess(
  emptyAsUndefined,
  z.coerce.number().int('must be a whole number').min(0).max(65_535).default(3000),
);

const originSchema = z
  .url({
    protocol: /^https?$/,
    message: 'must be an http(s) origin such as https://cards.example.com',
  })
  .refine((value) => new URL(value).origin === value.replace(/\/$/, ''), {
    message: 'must be an origin only (scheme, host, optional port), with no path or query',
  })
  .transform((value) => new URL(value).origin);

/**
 * TRUST_PROXY as Express understands it: false (default: the socket address is the client),
 * true, a hop count, or a comma-separated list of trusted addresses/subnets.
 */
const trustProxySchema = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .regex(/^(true|false|\d{1,2}|[0-9a-fA-F.:/, ]+|loopback|linklocal|uniquelocal)$/, {
      message: 'must be true, false, a hop count, or a comma-separated list of addresses',
    })
    .default('false')
    .transform((value): boolean | number | string => {
      if (value === 'true') return true;
      if (value === 'false') return false;
      if (/^\d+$/.test(value)) return Number(value);
      return value;
    }),
);

/** A connection URL whose scheme is one of `schemes`; the message names what was expected. */
const connectionUrlSchema = (schemes: string[], example: string) =>
  z.preprocess(
    emptyAsUndefined,
    z
      .url({
        protocol: new RegExp(`^(${schemes.join('|')})$`),
        message: `must be a URL such as ${example}`,
      })
      .optional(),
  );

/** 32 random bytes, as `openssl rand -base64 32` (or `-hex 32`) prints them. */
function totpKeyOf(text: string): Buffer | undefined {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  // Node's base64 decoder takes the URL-safe alphabet too.
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) return Buffer.from(value, 'base64');
  return undefined;
}
const totpKeyMessage = 'must be 32 random bytes in base64 or hex (openssl rand -base64 32)';
const oneTotpKey = z
  .string()
  .refine((text) => totpKeyOf(text) !== undefined, totpKeyMessage)
  .transform((text) => totpKeyOf(text) as Buffer);
const totpKeySchema = z.preprocess(emptyAsUndefined, oneTotpKey.optional());
/** Comma-separated; an error names the key by its place in the list (from 0). */
const previousTotpKeysSchema = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .transform((text) => text.split(',').filter((item) => item.trim() !== ''))
    .pipe(z.array(oneTotpKey))
    .optional(),
);

/**
 * Demo mode's key when none is set: derived from a public text, so every demo process, its
 * `pnpm users` and its next start agree with no set-up. It hides nothing from whoever reads
 * this file: demo mode runs only the built-in simulator and its public accounts.
 */
export const DEMO_TOTP_KEY = createHash('sha256')
  .update('Card Console demo mode: its public TOTP encryption key')
  .digest();

/** An operator's yes/no: 1 or true, 0 or false, unset (no). */
const alertFlag = z.preprocess(
  emptyAsUndefined,
  z
    .enum(['1', 'true', '0', 'false'], { message: 'must be 1 or true (or 0, false, unset)' })
    .optional()
    .transform((value) => value === '1' || value === 'true'),
);

const envSchema = z.object({
  PORT: portSchema,
  HOST: z.preprocess(emptyAsUndefined, z.string().min(1).default('127.0.0.1')),
  PUBLIC_ORIGIN: z.preprocess(emptyAsUndefined, originSchema.optional()),
  CARD_API_BASE_URL: z.preprocess(
    emptyAsUndefined,
    z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional(),
  ),
  CARD_API_KEY: optionalString,
  /**
   * The most calls the walks (the index sync, the Overview, exports, previews) have in flight to
   * the card service at once: the ceiling of their pace, which grows while it answers well.
   */
  CARD_API_PAGES_AT_ONCE: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(256).default(32),
  ),
  /** The card service's published rate limit, if it has one: requests a second. */
  CARD_API_RATE_PER_SECOND: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().positive('must be a number above 0').max(100_000).optional(),
  ),
  /** And how many it lets through at once (its burst); default one second's worth. */
  CARD_API_RATE_BURST: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(100_000).optional(),
  ),
  USERS_FILE: optionalString,
  DATA_DIR: optionalString,
  SESSION_SECRET: z.preprocess(
    emptyAsUndefined,
    z.string().min(32, 'must be at least 32 characters of random text').optional(),
  ),
  /** Encrypts second-factor secrets in the people store; required outside demo mode. */
  TOTP_ENCRYPTION_KEY: totpKeySchema,
  /** Keys TOTP_ENCRYPTION_KEY replaced (comma-separated): what they sealed still opens. */
  TOTP_ENCRYPTION_KEYS_PREVIOUS: previousTotpKeysSchema,
  LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  WEB_DIST: optionalString,
  TRUST_PROXY: trustProxySchema,
  /**
   * Demo mode, asked for (`pnpm start` sets it): the built-in simulator, public demo accounts
   * and the demo identity provider. Never what a missing CARD_API_BASE_URL gives.
   */
  DEMO_MODE: z.preprocess(
    emptyAsUndefined,
    z
      .enum(['1', 'true', '0', 'false'], { message: 'must be 1 or true (or 0, false, unset)' })
      .optional()
      .transform((value) => value === '1' || value === 'true'),
  ),
  /** Size of demo mode's generated data set (transactions over all sub accounts). */
  DEMO_TRANSACTIONS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(0).max(1_000_000).default(20_000),
  ),
  /**
   * Demo mode: card transactions that arrive a minute, on average, in working hours (a tenth of
   * it outside them); 0 freezes the demo's data.
   */
  DEMO_LIVE_PER_MINUTE: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().min(0).max(60, 'must be at most 60').default(2),
  ),
  /** Demo mode: the working hours of the living demo, local to New York: `8-19`, `0-24`. */
  DEMO_LIVE_HOURS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^\d{1,2}-\d{1,2}$/, 'must be two hours, such as 8-19')
      .transform((text) => text.split('-').map(Number) as [number, number])
      .refine(([from, to]) => from < to && to <= 24, 'must be an hour before another, up to 24')
      .default([8, 19]),
  ),
  /** Calls one signed-in person may make per minute (a load test raises it). */
  API_RATE_LIMIT_PER_MINUTE: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).default(300),
  ),
  /** CSV exports one person may run at once; more get 429 `export_busy`. */
  EXPORTS_PER_PERSON: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(100).default(2),
  ),
  /** CSV exports this BFF runs at once, everyone together. */
  EXPORTS_TOTAL: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(1_000).default(8),
  ),
  /** How long one export may run, holding its slot; then it is broken off and the slot freed. */
  EXPORT_MAX_MINUTES: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(1_440).default(30),
  ),
  /** Receipts one ZIP may hold; a filter with more is refused (422) before any byte. */
  RECEIPTS_ZIP_MAX_FILES: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(100_000).default(500),
  ),
  /** Megabytes of receipts one ZIP may hold; a filter with more is refused (422). */
  RECEIPTS_ZIP_MAX_MB: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(16_384).default(1_024),
  ),
  /** Limit previews and new Overview periods one person may have walking at once; more wait. */
  WALKS_PER_PERSON: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(100).default(2),
  ),
  /** Limit previews and Overview walks this BFF process runs at once, everyone together. */
  WALKS_TOTAL: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(1_000).default(4),
  ),
  /**
   * Whole dollars: a card maximum per transaction at or above this gets a warning in the card
   * editor. Up to the card service's own ceiling for a limit ($100,000,000).
   */
  LIMIT_WARNING_MAXIMUM_USD: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: 'must be a whole number of dollars, such as 50000' })
      .int('must be a whole number of dollars, such as 50000')
      .min(1, 'must be at least 1 (dollar)')
      .max(100_000_000, 'must be at most 100000000 (the highest limit a card can have)')
      .default(LARGE_MAXIMUM_CENTS / 100),
  ),
  /**
   * Seconds an Overview may show the days that can still change (today, the settling window,
   * days with pending transactions) as last read before it reads them again. 0: every request.
   */
  INSIGHTS_REFRESH_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: 'must be a whole number of seconds, such as 30' })
      .int('must be a whole number of seconds, such as 30')
      .min(0)
      .max(3_600, 'must be at most 3600 (an hour)')
      .default(30),
  ),
  /**
   * Megabytes of the Overview's per-day aggregates kept in this process when there is no
   * DATABASE_URL; the least recently used sub account × zone series go first.
   */
  INSIGHTS_MEMORY_MB: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: 'must be a whole number of megabytes, such as 128' })
      .int('must be a whole number of megabytes, such as 128')
      .min(1)
      .max(65_536)
      .default(128),
  ),
  /**
   * No longer used: PostgreSQL (DATABASE_URL) holds what replicas share. Read only to refuse a
   * start that still names it, so an operator learns at once rather than by lost sign-ins.
   */
  REDIS_URL: z.preprocess(emptyAsUndefined, z.string().optional()),
  /** The audit trail in PostgreSQL, as the role that may only insert and select. */
  DATABASE_URL: connectionUrlSchema(
    ['postgres', 'postgresql'],
    'postgres://card_console@db.example.com:5432/card_console',
  ),
  /**
   * The schema owner's URL: `pnpm migrate` alone uses it (loadMigrationConfig); a serving
   * process refuses to start with it set.
   */
  DATABASE_MIGRATION_URL: connectionUrlSchema(
    ['postgres', 'postgresql'],
    'postgres://card_console_owner@db.example.com:5432/card_console',
  ),
  /** Alert email: the SMTP server, `smtp://` or `smtps://` (credentials in it, never logged). */
  ALERT_SMTP_URL: connectionUrlSchema(
    ['smtp', 'smtps'],
    'smtps://alerts:secret@smtp.example.com:465',
  ),
  /** The From address of alert email. */
  ALERT_EMAIL_FROM: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^(?:[^<>@\s][^<>@]*<)?[^<>@\s]+@[A-Za-z0-9.-]+>?$/, {
        message: 'must be an address such as Card Console <alerts@example.com>',
      })
      .optional(),
  ),
  /** Receipts by email: the port the receipt mail listener takes (unset: no listener). */
  RECEIPT_MAIL_PORT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(65_535).optional(),
  ),
  /** The address the receipt mail listener binds to. */
  RECEIPT_MAIL_HOST: z.preprocess(emptyAsUndefined, z.string().min(1).default('0.0.0.0')),
  /** The forwarding addresses' domain: receipts+<secret>@<domain>. */
  RECEIPT_MAIL_DOMAIN: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(
        /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/,
        {
          message: 'must be a domain such as receipts.example.com',
        },
      )
      .optional(),
  ),
  /** Megabytes one mailed message may have (SIZE); larger ones are refused (552). */
  RECEIPT_MAIL_MAX_MESSAGE_MB: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(100).default(25),
  ),
  /** Messages one forwarding address takes an hour; more are refused for now (450). */
  RECEIPT_MAIL_MESSAGES_PER_HOUR: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(10_000).default(60),
  ),
  /** Connections one sending address may open a minute; more are refused (421). */
  RECEIPT_MAIL_CONNECTIONS_PER_MINUTE: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(10_000).default(30),
  ),
  /** Webhooks may use http: (development only: the alert and its signature travel in the clear). */
  ALERT_WEBHOOK_ALLOW_INSECURE: alertFlag,
  /** Webhooks may point at private, loopback or link-local addresses. */
  ALERT_WEBHOOK_ALLOW_PRIVATE: alertFlag,
  /** Tries of one delivery in all, the first included. */
  ALERT_DELIVERY_MAX_ATTEMPTS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(20).default(5),
  ),
  /** The wait after a first failed try; each next one doubles (at most an hour). */
  ALERT_DELIVERY_RETRY_BASE_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int('must be a whole number of milliseconds')
      .min(10)
      .max(3_600_000)
      .default(30_000),
  ),
  /** How often a replica looks for deliveries due. */
  ALERT_DELIVERY_POLL_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int('must be a whole number of milliseconds')
      .min(50)
      .max(600_000)
      .default(2_000),
  ),
  /** One webhook post or SMTP conversation, at most. */
  ALERT_DELIVERY_TIMEOUT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int('must be a whole number of milliseconds')
      .min(100)
      .max(120_000)
      .default(10_000),
  ),
  /** Alert rules one person keeps (the team's rules count as one more person's). */
  ALERT_RULES_PER_PERSON: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(1_000).default(50),
  ),
  /** Alert emails one recipient gets one by one in an hour; the rest go to their daily digest. */
  ALERT_EMAILS_PER_HOUR: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(10_000).default(20),
  ),
  /**
   * Seconds between the background reads of the days that can still change, while an alert rule
   * is on (so alerts come though nobody has a list open). 0: only when someone reads them.
   * Unset: 60, or 10 in demo mode (its card service is in the process, and a rule set there
   * should be seen firing within minutes).
   */
  ALERT_REFRESH_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: 'must be a whole number of seconds, such as 60' })
      .int('must be a whole number of seconds, such as 60')
      .min(0)
      .max(3_600, 'must be at most 3600 (an hour)')
      .optional(),
  ),
  /** Prometheus metrics on their own port (never the public one); unset: no metrics server. */
  METRICS_PORT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(0).max(65_535).optional(),
  ),
  METRICS_HOST: z.preprocess(emptyAsUndefined, z.string().min(1).default('127.0.0.1')),
  /** Single sign-on: the company's OpenID Provider (Okta, Entra ID, Google…), its issuer URL. */
  OIDC_ISSUER: z.preprocess(
    emptyAsUndefined,
    z
      .url({
        protocol: /^https?$/,
        message: 'must be the issuer URL, such as https://example.okta.com',
      })
      .optional(),
  ),
  OIDC_CLIENT_ID: optionalString,
  OIDC_CLIENT_SECRET: optionalString,
  /** The ID token claim the role comes from (a string or an array of strings). */
  OIDC_ROLE_CLAIM: z.preprocess(emptyAsUndefined, z.string().min(1).max(200).default('groups')),
  /** The claim that vouches for `email` (Entra ID: `xms_edov`). */
  OIDC_EMAIL_VERIFIED_CLAIM: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^[\w.:-]{1,100}$/, 'must be a claim name')
      .default('email_verified'),
  ),
  /** `claim value=role` pairs, comma-separated: `card-admins=admin,finance-team=finance`. */
  OIDC_ROLE_MAP: optionalString,
  /**
   * Scopes asked for besides `openid` (space-separated). Not `groups` by default: Google and
   * Entra ID refuse a scope they do not know; Okta's org server needs it for its groups claim.
   */
  OIDC_SCOPES: z.preprocess(emptyAsUndefined, z.string().min(1).default('email profile')),
  /**
   * Single sign-on starts one address may make a minute (each keeps a pending sign-in for 10
   * minutes). Raise it when a whole office signs in through one NAT address at once.
   */
  SSO_STARTS_PER_ADDRESS_PER_MINUTE: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1).max(100_000).default(60),
  ),
  /** The provider's name under the sign-in page's "Sign in with SSO": "With your <label> account." */
  OIDC_LABEL: z.preprocess(emptyAsUndefined, z.string().min(1).max(40).default('SSO')),
  /** How long SIGTERM waits for in-flight requests (an export is then cut) before exiting. */
  SHUTDOWN_GRACE_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(0).max(600).default(10),
  ),
});

export type Mode = 'demo' | 'production';

/** Limits that are policy rather than deployment settings; tests may loosen them. */
export interface RateLimitConfig {
  /** Sign-in attempts for one account from one address (the lock-out an owner may trip). */
  signInFailuresPerAccountAddress: number;
  /** Sign-in attempts from one address, whichever accounts. */
  signInFailuresPerAddress: number;
  /** Sign-in attempts for one account from every address: the ceiling that raises an alarm. */
  signInFailuresPerAccount: number;
  signInWindowSeconds: number;
  /** Password hashes computed at once, and how many may wait; beyond that sign-in answers 429. */
  signInHashesAtOnce: number;
  signInHashesQueued: number;
  /** Wrong step-up codes after which the session ends. */
  stepUpFailuresPerSession: number;
  apiRequestsPerMinute: number;
  revealsPerMinute: number;
  /** Test alerts (`POST /api/alerts/rules/:id/test`) one person may send a minute. */
  alertTestsPerMinute: number;
  /** Files (receipts) one person may upload a minute. */
  uploadsPerMinute: number;
  /** Single sign-on starts (sign-in or step-up) from one address a minute. */
  ssoStartsPerAddressPerMinute: number;
}

/** Single sign-on through an OpenID Provider (`features/sso`). */
export interface SsoConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The ID token claim read for the role. */
  roleClaim: string;
  /** Claim value → role; a person with no mapped value gets no session. */
  roleMap: Readonly<Record<string, Role>>;
  /**
   * The boolean claim by which the provider vouches for `email` (`email_verified`, the
   * standard's, by default; Entra ID's is `xms_edov`). Without it `true`, the email names nobody.
   */
  emailVerifiedClaim?: string;
  /** Scopes besides `openid`. */
  scopes: string[];
  label: string;
}

export interface Config {
  mode: Mode;
  port: number;
  host: string;
  publicOrigin: string;
  /**
   * Origins a mutation may come from: the public origin, and in demo mode with no
   * PUBLIC_ORIGIN set, its other loopback spellings (127.0.0.1, [::1]) too, so opening the
   * demo by address works as well as by name.
   */
  allowedOrigins: readonly string[];
  /** Unset in demo mode: index.ts starts the simulator and points the client at it. */
  cardApiBaseUrl: string | undefined;
  cardApiKey: string | undefined;
  /** The walks' pace: its ceiling, and the card service's published rate limit if set. */
  cardApiPace: { pagesAtOnce: number; rate?: { perSecond: number; burst: number } };
  usersFile: string | undefined;
  /**
   * Single sign-on: the configured provider, 'demo' (demo mode starts its own provider on
   * loopback), or undefined (email and password only).
   */
  sso: SsoConfig | 'demo' | undefined;
  dataDir: string;
  /** Keys the session store (HMAC of the cookie id), so a store dump holds no usable cookie. */
  sessionSecret: string;
  /**
   * Seal second-factor secrets in the people store (`platform/security/totp-secret-box.ts`):
   * TOTP_ENCRYPTION_KEY and the keys it replaced; demo mode without one, DEMO_TOTP_KEY.
   */
  totpKeys: TotpKeys;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  webDist: string;
  trustProxy: boolean | number | string;
  cookie: { name: string; secure: boolean };
  session: { idleMs: number; absoluteMs: number; stepUpMs: number };
  rateLimits: RateLimitConfig;
  /** CSV exports at once, per person and in all (`platform/security/export-slots.ts`). */
  exportCaps: { perPerson: number; total: number; lifetimeMs?: number };
  /**
   * Receipts by email (`features/receipt-inbox/email`): the listener and the addresses' domain;
   * undefined when not set up.
   */
  receiptMail?: {
    host: string;
    port: number;
    domain: string;
    maxMessageBytes: number;
    messagesPerHourPerAddress: number;
    connectionsPerMinutePerIp: number;
  };
  /** What one receipts ZIP may hold (`features/transaction-index/receipt-zip-files.ts`). */
  receiptsZip: { maxFiles: number; maxBytes: number };
  /** Demo mode only: how many transactions the in-process simulator generates. */
  demoTransactions: number;
  /** Demo mode only: the living demo's arrivals (`perMinute` 0: frozen). */
  demoLive: { perMinute: number; hours: { from: number; to: number } };
  /** The card editor warns at a maximum per transaction this high (the session carries it). */
  limitWarningMaximumCents: number;
  /** How long the Overview's days that can still change are shown before they are read again. */
  insightsRefreshMs: number;
  /** The Overview's in-memory day store's bound, in bytes (estimated). */
  insightsMemoryBytes: number;
  /** Limit previews and Overview walks at once, per person and in all (`upstream/walk-gate.ts`). */
  walkCaps: { perPerson: number; total: number };
  /** Set: the audit trail lives in PostgreSQL; otherwise the embedded store in `dataDir`. */
  databaseUrl: string | undefined;
  /** Alert delivery: email when `smtpUrl` and `emailFrom` are set, webhooks under the policy. */
  alertDelivery: {
    smtpUrl: string | undefined;
    emailFrom: string | undefined;
    webhook: { allowInsecure: boolean; allowPrivate: boolean };
    maxAttempts: number;
    retryBaseMs: number;
    pollMs: number;
    timeoutMs: number;
  };
  /** Alert rules per person (and the team's), and emails per recipient and hour. */
  alertLimits: { rulesPerPerson: number; emailsPerHour: number };
  /** Between background reads of the open days while an alert rule is on; 0: none. */
  alertRefreshMs: number;
  /** Where Prometheus metrics are served; undefined: not served. */
  metrics: { port: number; host: string } | undefined;
  /** SIGTERM: how long in-flight requests may run before they are cut and the process exits. */
  shutdownGraceMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function isLoopbackOrigin(origin: string): boolean {
  const { hostname } = new URL(origin);
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}

/**
 * A plain-http URL to a host other than localhost, 127.0.0.0/8 or ::1 (the URL parser has
 * already lower-cased the scheme and normalised IPv4 spellings such as `127.1`).
 */
function isClearTextOffHost(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && !isLoopbackHost(hostname);
}

function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/**
 * Standard claims (OpenID Connect Core §5.1) with no verification flag that a person can edit
 * at many providers (Keycloak's account console, Google's profile): never a source of a role.
 * `email` and `phone_number` may be, but count only when verified (`verifiedClaim`).
 */
const SELF_ASSERTED_CLAIMS = new Set([
  'name',
  'given_name',
  'family_name',
  'middle_name',
  'nickname',
  'preferred_username',
  'profile',
  'picture',
  'website',
  'gender',
  'birthdate',
  'zoneinfo',
  'locale',
  'address',
]);

/**
 * The OIDC_* variables, all or none of issuer, client id and secret; the role map must name at
 * least one value, each mapped to finance or admin. Problems are added to `problems`.
 */
function ssoConfig(e: z.infer<typeof envSchema>, problems: string[]): SsoConfig | undefined {
  const given = [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET].filter(Boolean).length;
  if (given === 0) {
    if (e.OIDC_ROLE_MAP) problems.push('OIDC_ROLE_MAP: set without OIDC_ISSUER');
    return undefined;
  }
  if (given < 3) {
    problems.push('OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET: set all three, or none');
    return undefined;
  }
  if (e.OIDC_ISSUER && isClearTextOffHost(e.OIDC_ISSUER)) {
    problems.push('OIDC_ISSUER: must be https:// (http:// only to a loopback host)');
  }
  if (SELF_ASSERTED_CLAIMS.has(e.OIDC_ROLE_CLAIM)) {
    problems.push(
      `OIDC_ROLE_CLAIM: "${e.OIDC_ROLE_CLAIM}" is a profile claim people can set themselves at many providers; map a group or role claim (groups, roles), or email`,
    );
  }
  const roleMap: Record<string, Role> = {};
  for (const pair of (e.OIDC_ROLE_MAP ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.lastIndexOf('=');
    const value = pair.slice(0, at).trim();
    const role = pair.slice(at + 1).trim();
    if (at <= 0 || value === '' || (role !== 'finance' && role !== 'admin')) {
      problems.push(
        `OIDC_ROLE_MAP: "${pair.trim().slice(0, 80)}" is not "claim value=finance" or "claim value=admin"`,
      );
      continue;
    }
    roleMap[value] = role;
  }
  if (Object.keys(roleMap).length === 0 && !problems.some((p) => p.startsWith('OIDC_ROLE_MAP'))) {
    problems.push(
      'OIDC_ROLE_MAP: required with OIDC_ISSUER, such as card-admins=admin,finance-team=finance',
    );
  }
  return {
    issuer: e.OIDC_ISSUER as string,
    clientId: e.OIDC_CLIENT_ID as string,
    clientSecret: e.OIDC_CLIENT_SECRET as string,
    roleClaim: e.OIDC_ROLE_CLAIM,
    roleMap,
    emailVerifiedClaim: e.OIDC_EMAIL_VERIFIED_CLAIM,
    scopes: e.OIDC_SCOPES.split(/\s+/).filter((s) => s !== '' && s !== 'openid'),
    label: e.OIDC_LABEL,
  };
}

/**
 * `pnpm migrate`'s configuration: the schema owner's URL, and nothing a server needs. Throws a
 * ConfigError naming the variable (never its value).
 */
export function loadMigrationConfig(env: Record<string, string | undefined>): {
  migrationUrl: string;
} {
  const parsed = envSchema.shape.DATABASE_MIGRATION_URL.safeParse(env.DATABASE_MIGRATION_URL);
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? 'is not valid';
    throw new ConfigError(`Invalid configuration:\n  DATABASE_MIGRATION_URL: ${message}`);
  }
  if (!parsed.data) {
    throw new ConfigError(
      'Invalid configuration:\n  DATABASE_MIGRATION_URL: required, the schema owner\'s postgres:// URL (docs/operations/audit-trail.md, "Migrations")',
    );
  }
  return { migrationUrl: parsed.data };
}

/**
 * The TOTP keys as loadConfig reads them, for a command that opens the people store without
 * the whole configuration (`pnpm users`): undefined outside demo mode when none is set.
 */
export function totpKeysOf(env: Record<string, string | undefined>): TotpKeys | undefined {
  const parsed = envSchema
    .pick({
      TOTP_ENCRYPTION_KEY: true,
      TOTP_ENCRYPTION_KEYS_PREVIOUS: true,
      DEMO_MODE: true,
      CARD_API_BASE_URL: true,
    })
    .safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const demo = e.DEMO_MODE && !e.CARD_API_BASE_URL;
  const current = e.TOTP_ENCRYPTION_KEY ?? (demo ? DEMO_TOTP_KEY : undefined);
  return current && { current, previous: e.TOTP_ENCRYPTION_KEYS_PREVIOUS ?? [] };
}

/** Builds the configuration or throws a ConfigError whose message names each bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  // `pnpm --filter … start` runs in apps/bff; relative paths mean the caller's directory.
  const base = env.INIT_CWD || process.cwd();
  // Demo only when asked for and no card service is named: a production start with its
  // configuration forgotten or mistyped is refused, naming what is missing.
  const mode: Mode = e.DEMO_MODE && !e.CARD_API_BASE_URL ? 'demo' : 'production';
  const publicOrigin = e.PUBLIC_ORIGIN ?? `http://localhost:${e.PORT}`;

  const problems: string[] = [];
  if (mode === 'production') {
    if (!e.CARD_API_BASE_URL) {
      problems.push(
        'CARD_API_BASE_URL: required, the Card Program Service to use (to try the product against its built-in demo service instead, set DEMO_MODE=1, as `pnpm start` does)',
      );
    }
    if (!e.CARD_API_KEY) problems.push('CARD_API_KEY: required outside demo mode');
    if (!e.USERS_FILE && !e.OIDC_ISSUER) {
      problems.push(
        'USERS_FILE or OIDC_ISSUER: at least one is required outside demo mode (email and password sign-in, single sign-on, or both)',
      );
    }
    if (!e.SESSION_SECRET) problems.push('SESSION_SECRET: required outside demo mode');
    if (!e.TOTP_ENCRYPTION_KEY) {
      problems.push(
        'TOTP_ENCRYPTION_KEY: required outside demo mode: anyone signing in with a password may hold a second-factor secret, stored encrypted with this key (make one with `openssl rand -base64 32`, the same on every replica; see docs/operations.md#second-factor-secrets)',
      );
    }
    // The loopback default would refuse every sign-in from the real address as bad_origin.
    if (!e.PUBLIC_ORIGIN) {
      problems.push(
        'PUBLIC_ORIGIN: required outside demo mode (the origin people open, such as https://cards.example.com)',
      );
    }
    if (e.CARD_API_BASE_URL && isClearTextOffHost(e.CARD_API_BASE_URL)) {
      problems.push(
        'CARD_API_BASE_URL: must be https:// (the API key travels with every call); http:// only to a loopback host',
      );
    }
    if (!publicOrigin.startsWith('https://') && !isLoopbackOrigin(publicOrigin)) {
      problems.push(
        'PUBLIC_ORIGIN: must be https:// outside demo mode (session cookies are Secure)',
      );
    }
  } else if (e.CARD_API_KEY) {
    problems.push(
      'CARD_API_KEY: set without CARD_API_BASE_URL; set both, or neither for demo mode (DEMO_MODE=1)',
    );
  }
  if ((e.RECEIPT_MAIL_PORT === undefined) !== (e.RECEIPT_MAIL_DOMAIN === undefined)) {
    throw new ConfigError(
      'RECEIPT_MAIL_PORT and RECEIPT_MAIL_DOMAIN: set both (receipts by email) or neither',
    );
  }
  if ((e.ALERT_SMTP_URL === undefined) !== (e.ALERT_EMAIL_FROM === undefined)) {
    throw new ConfigError(
      'ALERT_SMTP_URL and ALERT_EMAIL_FROM: set both (alert email) or neither (no alert email)',
    );
  }
  // Redis is gone (docs/decisions/0114-one-shared-engine.md): left set, it would look as if the
  // replicas still shared their sessions and limits through it. Never echoed: it may hold a password.
  if (e.REDIS_URL !== undefined) {
    problems.push(
      'REDIS_URL: set, but Card Console no longer uses Redis: with DATABASE_URL, PostgreSQL holds the sessions, limits, locks and everything else the replicas share. Run `pnpm migrate`, then remove REDIS_URL (and the Redis service) from the deployment (docs/operations/replicas.md)',
    );
  }
  // The owner may disable the audit trail's trigger and delete records: a serving process never
  // holds that login. Migrations are a one-shot job before the replicas start (`pnpm migrate`).
  if (e.DATABASE_MIGRATION_URL) {
    problems.push(
      'DATABASE_MIGRATION_URL: set for the server; it is the schema owner\'s login, which only `pnpm migrate` (the compose service `migrate`) uses, before the replicas start. Remove it from the server\'s environment (docs/operations/audit-trail.md, "Migrations")',
    );
  }
  if (e.TOTP_ENCRYPTION_KEYS_PREVIOUS && !e.TOTP_ENCRYPTION_KEY) {
    problems.push(
      'TOTP_ENCRYPTION_KEYS_PREVIOUS: set without TOTP_ENCRYPTION_KEY, the key that replaced them',
    );
  }
  const sso = ssoConfig(e, problems);
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT) {
    problems.push(
      'METRICS_PORT: must differ from PORT (metrics are never served on the public port)',
    );
  }
  if (problems.length) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);

  return {
    mode,
    port: e.PORT,
    host: e.HOST,
    publicOrigin,
    allowedOrigins:
      mode === 'demo' && !e.PUBLIC_ORIGIN
        ? ['localhost', '127.0.0.1', '[::1]'].map((host) => `http://${host}:${e.PORT}`)
        : [publicOrigin],
    cardApiBaseUrl: e.CARD_API_BASE_URL,
    cardApiKey: e.CARD_API_KEY,
    cardApiPace: {
      pagesAtOnce: e.CARD_API_PAGES_AT_ONCE,
      ...(e.CARD_API_RATE_PER_SECOND === undefined
        ? {}
        : {
            rate: {
              perSecond: e.CARD_API_RATE_PER_SECOND,
              burst: e.CARD_API_RATE_BURST ?? Math.max(1, Math.ceil(e.CARD_API_RATE_PER_SECOND)),
            },
          }),
    },
    usersFile: e.USERS_FILE ? resolve(base, e.USERS_FILE) : undefined,
    sso: sso ?? (mode === 'demo' ? 'demo' : undefined),
    dataDir: e.DATA_DIR ? resolve(base, e.DATA_DIR) : resolve(bffDir, '.data'),
    sessionSecret: e.SESSION_SECRET ?? randomBytes(32).toString('base64url'),
    totpKeys: {
      current: e.TOTP_ENCRYPTION_KEY ?? DEMO_TOTP_KEY,
      previous: e.TOTP_ENCRYPTION_KEYS_PREVIOUS ?? [],
    },
    logLevel: e.LOG_LEVEL,
    webDist: e.WEB_DIST ? resolve(base, e.WEB_DIST) : resolve(repoRoot, 'apps', 'web', 'dist'),
    trustProxy: e.TRUST_PROXY,
    // Demo is plain http on localhost, where a __Host- cookie (which must be Secure) won't do.
    cookie:
      mode === 'production'
        ? { name: '__Host-cc_session', secure: true }
        : { name: 'cc_session', secure: false },
    session: { idleMs: 15 * 60_000, absoluteMs: 12 * 60 * 60_000, stepUpMs: 5 * 60_000 },
    demoTransactions: e.DEMO_TRANSACTIONS,
    demoLive: {
      perMinute: e.DEMO_LIVE_PER_MINUTE,
      hours: { from: e.DEMO_LIVE_HOURS[0], to: e.DEMO_LIVE_HOURS[1] },
    },
    limitWarningMaximumCents: e.LIMIT_WARNING_MAXIMUM_USD * 100,
    insightsRefreshMs: e.INSIGHTS_REFRESH_SECONDS * 1000,
    insightsMemoryBytes: e.INSIGHTS_MEMORY_MB * 1024 * 1024,
    walkCaps: { perPerson: e.WALKS_PER_PERSON, total: e.WALKS_TOTAL },
    databaseUrl: e.DATABASE_URL,
    alertDelivery: {
      smtpUrl: e.ALERT_SMTP_URL,
      emailFrom: e.ALERT_EMAIL_FROM,
      webhook: {
        allowInsecure: e.ALERT_WEBHOOK_ALLOW_INSECURE,
        allowPrivate: e.ALERT_WEBHOOK_ALLOW_PRIVATE,
      },
      maxAttempts: e.ALERT_DELIVERY_MAX_ATTEMPTS,
      retryBaseMs: e.ALERT_DELIVERY_RETRY_BASE_MS,
      pollMs: e.ALERT_DELIVERY_POLL_MS,
      timeoutMs: e.ALERT_DELIVERY_TIMEOUT_MS,
    },
    alertLimits: {
      rulesPerPerson: e.ALERT_RULES_PER_PERSON,
      emailsPerHour: e.ALERT_EMAILS_PER_HOUR,
    },
    alertRefreshMs: (e.ALERT_REFRESH_SECONDS ?? (mode === 'demo' ? 10 : 60)) * 1000,
    metrics:
      e.METRICS_PORT === undefined ? undefined : { port: e.METRICS_PORT, host: e.METRICS_HOST },
    shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
    exportCaps: {
      perPerson: e.EXPORTS_PER_PERSON,
      total: e.EXPORTS_TOTAL,
      lifetimeMs: e.EXPORT_MAX_MINUTES * 60_000,
    },
    ...(e.RECEIPT_MAIL_PORT !== undefined && e.RECEIPT_MAIL_DOMAIN !== undefined
      ? {
          receiptMail: {
            host: e.RECEIPT_MAIL_HOST,
            port: e.RECEIPT_MAIL_PORT,
            domain: e.RECEIPT_MAIL_DOMAIN.toLowerCase(),
            maxMessageBytes: e.RECEIPT_MAIL_MAX_MESSAGE_MB * 1024 * 1024,
            messagesPerHourPerAddress: e.RECEIPT_MAIL_MESSAGES_PER_HOUR,
            connectionsPerMinutePerIp: e.RECEIPT_MAIL_CONNECTIONS_PER_MINUTE,
          },
        }
      : {}),
    receiptsZip: {
      maxFiles: e.RECEIPTS_ZIP_MAX_FILES,
      maxBytes: e.RECEIPTS_ZIP_MAX_MB * 1024 * 1024,
    },
    rateLimits: {
      signInFailuresPerAccountAddress: 5,
      signInFailuresPerAddress: 20,
      signInFailuresPerAccount: 50,
      signInWindowSeconds: 15 * 60,
      signInHashesAtOnce: 2,
      signInHashesQueued: 8,
      stepUpFailuresPerSession: 5,
      apiRequestsPerMinute: e.API_RATE_LIMIT_PER_MINUTE,
      revealsPerMinute: 5,
      alertTestsPerMinute: 5,
      uploadsPerMinute: 30,
      ssoStartsPerAddressPerMinute: e.SSO_STARTS_PER_ADDRESS_PER_MINUTE,
    },
  };
}
