// What each environment variable means, for operators: the one place a variable is described.
// `docs/configuration.md` is generated from this file (`node scripts/config-docs.mjs`), and
// `config-docs.test.ts` fails when a variable `env.ts` reads has no entry here, when an entry
// names a variable nothing reads, when a documented default differs from the schema's, or when
// the generated page is out of date. Every other document links to the page instead.

/** One variable: its default as the schema gives it (or what unset means), and what it does. */
export interface VariableDoc {
  default: string;
  description: string;
}

export interface VariableGroup {
  title: string;
  intro?: string;
  variables: Readonly<Record<string, VariableDoc>>;
}

/** Where the generated page lives, from the repository root. */
export const configurationDocPath = 'docs/configuration.md';

/** Every variable `apps/bff/src/env.ts` reads, each in exactly one group. */
export const bffGroups: readonly VariableGroup[] = [
  {
    title: 'Required in production',
    intro:
      'Without these (or with one malformed) the BFF refuses to start, naming each one. Sign-in needs `USERS_FILE`, single sign-on (`OIDC_ISSUER` and the rest, below), or both.',
    variables: {
      CARD_API_BASE_URL: {
        default: 'unset: production refuses to start (demo mode needs `DEMO_MODE=1`)',
        description:
          'The Card Program Service to use. `https://` is required unless the host is `localhost`, `127.0.0.0/8` or `[::1]` (a sidecar or tunnel on the same machine): the API key travels with every call. Set, it overrides `DEMO_MODE`.',
      },
      CARD_API_KEY: {
        default: 'none',
        description:
          "The card service's API key; required with `CARD_API_BASE_URL`, refused without it. It stays in the BFF's memory: never in a response, a header to the browser, or a log line.",
      },
      USERS_FILE: {
        default: 'none',
        description:
          'The people who sign in with email and password (written by `pnpm users`, see [operations](operations.md#people)). Re-read when it changes and on SIGHUP; each replica reads its own, so give every replica the same file. In production `USERS_FILE` or `OIDC_ISSUER` (or both) is required.',
      },
      SESSION_SECRET: {
        default: 'random per process (demo mode only)',
        description:
          'At least 32 characters of random text, the same on every replica. It keys the session store (a store key is SHA-256 of the secret and the cookie id), so a dump of the store holds no usable cookie.',
      },
      TOTP_ENCRYPTION_KEY: {
        default: "demo: a fixed key derived from a public text (demo mode's data only)",
        description:
          "32 random bytes, base64 or hex (`openssl rand -base64 32`), the same on every replica and for `pnpm users`. Second-factor (TOTP) secrets are kept in the people store encrypted with it (AES-256-GCM, bound to the person's email), so a dump of the database or its login alone reads none. Keep it apart from the database's backups; lost, every authenticator app must be enrolled again. To change it, see [second-factor secrets](operations.md#second-factor-secrets).",
      },
      PUBLIC_ORIGIN: {
        default: 'demo: `http://localhost:$PORT`',
        description:
          'The origin people open, as the browser shows it (`https://cards.example.com`; an origin only, no path). `https://` outside demo mode unless loopback (session cookies are `Secure`). A change (POST, PATCH, DELETE) from any other origin, sign-in included, is refused with 403 `bad_origin`, and a warning in the log names the origin received and the one allowed; the start-up line prints it. Passkeys are bound to its host name (changing it means enrolling again), and the single sign-on redirect URIs are made from it. Demo mode without it also accepts `http://127.0.0.1:$PORT` and `http://[::1]:$PORT`; `pnpm dev` sets `http://localhost:5173` (the Vite dev server) unless given.',
      },
    },
  },
  {
    title: 'Where it listens',
    variables: {
      PORT: {
        default: '3000',
        description:
          "The public port: the SPA and `/api`. `0` picks a free port. Demo mode's accepted origin follows it.",
      },
      HOST: {
        default: '127.0.0.1',
        description:
          'The address to listen on. Loopback by default (the demo has public passwords), which suits a proxy on the same machine; set `0.0.0.0` in a container or for a balancer on another machine (the container image does).',
      },
      TRUST_PROXY: {
        default: 'false',
        description:
          "Express's `trust proxy`: `true`, a hop count (`1`), or the proxy's addresses or subnets (`loopback`, `10.0.0.0/8`, comma-separated). Behind a proxy or load balancer it makes sign-in limits and the log see the person's address from `X-Forwarded-For` rather than the proxy's. Never `true` where people can reach the BFF directly: they could write that header themselves.",
      },
    },
  },
  {
    title: 'State and storage',
    intro:
      'How these fit together for several replicas: [operations/replicas.md](operations/replicas.md).',
    variables: {
      REDIS_URL: {
        default: 'unset',
        description:
          "No longer used: a start with it set is refused, saying so. PostgreSQL (`DATABASE_URL`) holds what several replicas share (sessions, sign-in limits and lock-outs, used TOTP codes, edit locks, export caps and receipts, pending single sign-ons, passkeys, the Overview's per-day figures); without it one process keeps them in memory. Moving off Redis: [operations/replicas.md](operations/replicas.md).",
      },
      DATABASE_URL: {
        default:
          'unset: the embedded trail, `DATA_DIR/audit.jsonl`, and the embedded transaction index',
        description:
          '`postgres://` or `postgresql://`: the audit trail in PostgreSQL, as a login that may only insert and select (start-up refuses one that could change the trail), and the transaction index, shared by the replicas (the login also holds `card_console_index_writer`). Set-up: [operations/audit-trail.md](operations/audit-trail.md#postgresql).',
      },
      DATABASE_MIGRATION_URL: {
        default: 'unset (the server refuses to start with it set)',
        description:
          "The schema owner's `postgres://` URL, for `pnpm migrate` alone: the one-shot job that applies every migration (audit trail, transaction index) before the replicas start. Never give it to the server: the owner can turn the audit trail's trigger off. A server finds the schema behind its build (run `pnpm migrate`) or migrated by a newer build and refuses to start, saying which. [Migrations](operations/audit-trail.md#migrations).",
      },
      DATA_DIR: {
        default: '`apps/bff/.data`, inside the checkout',
        description:
          "Holds `audit.jsonl` (the embedded audit trail, when `DATABASE_URL` is not set), `second-factors.json` (passkeys and TOTP switches, when `DATABASE_URL` is not set) and `transaction-index/` (the transaction index on the embedded engine, a copy of the card service's transactions that a sync can rebuild). Put it outside the checkout (`/var/lib/card-console`, as the container image does), where a new deployment or a `git clean` cannot take it.",
      },
      TOTP_ENCRYPTION_KEYS_PREVIOUS: {
        default: 'none',
        description:
          'The keys `TOTP_ENCRYPTION_KEY` replaced, comma-separated, same format. Secrets they sealed still verify, and are sealed again with the current key when the people store opens and when used; drop a key once the log no longer reports secrets it sealed.',
      },
    },
  },
  {
    title: 'Single sign-on',
    intro:
      'OpenID Connect, beside or instead of the users file. `OIDC_ISSUER`, `OIDC_CLIENT_ID` and `OIDC_CLIENT_SECRET` are set all three or none. Setting up a provider: [operations/single-sign-on.md](operations/single-sign-on.md).',
    variables: {
      OIDC_ISSUER: {
        default: 'unset: no single sign-on',
        description:
          "The provider's issuer URL (`https://`; `http://` only to a loopback host): `https://example.okta.com`, `https://login.microsoftonline.com/<tenant id>/v2.0`, `https://accounts.google.com`.",
      },
      OIDC_CLIENT_ID: {
        default: 'none',
        description: 'The client id of the web application registered for Card Console.',
      },
      OIDC_CLIENT_SECRET: {
        default: 'none',
        description: "That application's client secret.",
      },
      OIDC_ROLE_CLAIM: {
        default: 'groups',
        description:
          'The ID token claim the role comes from (a string or an array of strings). A profile claim people can edit themselves (`name`, `preferred_username`, `nickname`…) is refused at start-up; `email` (or `phone_number`) counts only when verified.',
      },
      OIDC_ROLE_MAP: {
        default: 'none (required with `OIDC_ISSUER`)',
        description:
          '`claim value=role` pairs, comma-separated: `card-admins=admin,finance-team=finance`. Admin wins when both match; a person whose claims map to no role gets no session.',
      },
      OIDC_SCOPES: {
        default: '`email profile`',
        description:
          "Scopes asked for besides `openid`, space-separated. Add `groups` where the provider has that scope (Okta's org authorization server); it is not in the default because Google and Entra ID refuse a scope they do not know.",
      },
      OIDC_EMAIL_VERIFIED_CLAIM: {
        default: 'email_verified',
        description:
          'The boolean claim by which the provider vouches for `email`; without it exactly `true`, the email names nobody. Entra ID: `xms_edov`.',
      },
      OIDC_LABEL: {
        default: 'SSO',
        description:
          'The provider\'s name under the sign-in page\'s "Sign in with SSO" button: "With your … account." (1 to 40 characters).',
      },
      SSO_STARTS_PER_ADDRESS_PER_MINUTE: {
        default: '60',
        description:
          "Single sign-on starts (sign-in or step-up) one address may make a minute, 1 to 100,000; each keeps a pending sign-in for 10 minutes. Past it the browser lands on `/sign-in?sso=busy`. Raise it when a whole office reaches Card Console through one address (with `TRUST_PROXY` set, the address is the person's, not the proxy's).",
      },
    },
  },
  {
    title: 'Capacity and limits',
    intro:
      'Every limit, including those that are policy and not settings: [operations/limits.md](operations/limits.md).',
    variables: {
      CARD_API_PAGES_AT_ONCE: {
        default: '32',
        description:
          "The most calls the walks (the index sync, the Overview, CSV exports, limit previews) have in flight to the card service at once (1 to 256). Their pace starts at 8, grows while the service answers within 2 s, halves on a 429 or a slow answer and waits out every `Retry-After` ([0122](decisions/0122-a-walk-paced-by-the-card-service.md)); this is its ceiling. People's own calls are never held by it.",
      },
      CARD_API_RATE_PER_SECOND: {
        default: 'none',
        description:
          "The card service's published rate limit, requests a second, if it publishes one: the walks keep to four fifths of it and two fifths of its burst (room for pages a busy thread sends together), and leave the rest to people's own calls, since an edit the service turns away (429) is not tried again. With `DATABASE_URL`, the replicas alive divide it among themselves (each renews a lease in PostgreSQL every 5 s), so their walks together keep to it. Unset, the pace learns the limit from the service's 429s, and an edit made just as a walk meets the limit can be refused (503, to try again shortly). Demo mode publishes its simulator's own limit (100 a second, 200 at once).",
      },
      CARD_API_RATE_BURST: {
        default: 'one second of `CARD_API_RATE_PER_SECOND`',
        description:
          'How many requests the published rate limit lets through at once (its burst); only with `CARD_API_RATE_PER_SECOND`.',
      },
      API_RATE_LIMIT_PER_MINUTE: {
        default: '300',
        description:
          'Calls one signed-in person may make a minute (429 `rate_limited` beyond; reveals stay at 5 a minute). A load test raises it.',
      },
      EXPORTS_PER_PERSON: {
        default: '2',
        description:
          'CSV exports one person may run at once (1 to 100); one more is refused at once with 429 `export_busy` and `Retry-After`, before the card service is asked for anything.',
      },
      EXPORTS_TOTAL: {
        default: '8',
        description:
          'CSV exports running at once, everyone together (1 to 1,000): per BFF process, or per deployment (every replica together) with `DATABASE_URL`.',
      },
      EXPORT_MAX_MINUTES: {
        default: '30',
        description:
          'How long one export (CSV or receipts ZIP) may run, 1 to 1,440 minutes: past it the download is broken off and its slot given back. A slot is also given back the moment its download is cancelled, so a slot is never lost; with `DATABASE_URL`, a slot whose replica stopped (killed, or cut off from the database) is given back within 15 s, when its lease lapses.',
      },
      RECEIPTS_ZIP_MAX_FILES: {
        default: '500',
        description:
          'Receipts one ZIP may hold (1 to 100,000). A filter with more is refused before any byte with 422 `receipts_zip_too_large`, giving the counts and asking the person to narrow the period.',
      },
      RECEIPTS_ZIP_MAX_MB: {
        default: '1024',
        description:
          "Megabytes of receipts one ZIP may hold (1 to 16,384), refused the same way. A ZIP is streamed at the reader's pace, about one receipt in memory at a time, so this bounds the download, not memory.",
      },
      WALKS_PER_PERSON: {
        default: '2',
        description:
          'Limit previews and new Overview periods one person may have walking the card service at once (1 to 100). More wait briefly in a bounded line (4 per person, 32 in all, at most 10 s), then get 429 `walks_busy` with `Retry-After: 5`.',
      },
      WALKS_TOTAL: {
        default: '4',
        description:
          'Limit previews and Overview walks this BFF process runs at once, everyone together (1 to 1,000). Per process, also with `DATABASE_URL`: with N replicas the card service sees at most N × `WALKS_TOTAL` walks, so size it for the deployment.',
      },
    },
  },
  {
    title: 'Screens',
    variables: {
      LIMIT_WARNING_MAXIMUM_USD: {
        default: '50000',
        description:
          'Whole dollars, 1 to 100,000,000: a card maximum per transaction set at or above this gets a warning in the card editor before it is reviewed, as a $0 maximum does (GET `/api/session` carries it as `largeMaximumCents`). Still allowed: it asks for a second look, it is not a cap.',
      },
      INSIGHTS_REFRESH_SECONDS: {
        default: '30',
        description:
          '0 to 3,600: how long the Overview shows the days that can still change (today, the last three days, days with pending transactions) as last read before a request reads them again. The screen says when they were read and has a Refresh button, which reads them if they are 5 s old or more. 0 reads them on every request. The transaction index uses the same age: a read of it starts a sync of the open days of each sub account it asks about that were read this long ago or more.',
      },
      INSIGHTS_MEMORY_MB: {
        default: '128',
        description:
          "1 to 65,536, without `DATABASE_URL` (ignored with it): megabytes (estimated) of the Overview's per-day figures kept in memory; past it the least recently used sub account × zone series go first and are read again when next asked for.",
      },
    },
  },
  {
    title: 'Receipts by email',
    intro:
      "Off unless both `RECEIPT_MAIL_PORT` and `RECEIPT_MAIL_DOMAIN` are set. Then each BFF process listens for mail (SMTP, no authentication: it only receives) and each person gets a private forwarding address, `receipts+<secret>@<domain>`, on the Receipt inbox screen; a From header can be forged, so the secret alone says whose inbox it is, and a new address makes the old one refuse mail (550). Point the domain's MX (or your mail relay) at the listener. Attachments go to the person's inbox, read and matched like uploads (decision 0118). Plain SMTP: put a relay in front for TLS.",
    variables: {
      RECEIPT_MAIL_PORT: {
        default: 'unset: no listener',
        description: 'The port the receipt mail listener takes (25 when it is the MX itself).',
      },
      RECEIPT_MAIL_HOST: {
        default: '0.0.0.0',
        description: 'The address the listener binds to.',
      },
      RECEIPT_MAIL_DOMAIN: {
        default: 'unset: no forwarding addresses',
        description:
          'The domain of the forwarding addresses, such as `receipts.example.com`; mail to any other domain is refused.',
      },
      RECEIPT_MAIL_MAX_MESSAGE_MB: {
        default: '25',
        description:
          'Megabytes one message may have (1 to 100), advertised as SIZE; a larger one is refused (552) and nothing is kept. Each attachment is a receipt of at most 10 MB, like an upload.',
      },
      RECEIPT_MAIL_MESSAGES_PER_HOUR: {
        default: '60',
        description:
          'Messages one forwarding address takes an hour (1 to 10,000); more are refused for now (450), so the sender tries again later.',
      },
      RECEIPT_MAIL_CONNECTIONS_PER_MINUTE: {
        default: '30',
        description:
          'Connections one sending address may open a minute (1 to 10,000); more are refused (421).',
      },
    },
  },
  {
    title: 'Alert delivery',
    intro:
      'Alerts go to the in-app inbox always; by email once `ALERT_SMTP_URL` and `ALERT_EMAIL_FROM` are set (both or neither), and to the webhook targets admins add on the alerts screen. Each delivery is made once whatever the number of replicas and restarts: [alerts](../apps/bff/src/features/alerts/README.md#delivery). Every BFF process runs one delivery worker over the outbox in its engine: with `DATABASE_URL` the replicas share the outbox in PostgreSQL (each takes its own rows, and a replica that dies mid-send leaves its rows to another once their ten-minute lease lapses); otherwise the one in the embedded engine.',
    variables: {
      ALERT_SMTP_URL: {
        default: 'unset: no alert email (demo mode too)',
        description:
          '`smtp://` (STARTTLS when offered) or `smtps://` (TLS from the start), with the user name and password in it: `smtps://alerts:secret@smtp.example.com:465`. Never logged. Invitations to new people go out through it too (with `ALERT_EMAIL_FROM` as From); when it is unset or a send fails, the admin sends the invitation link themselves.',
      },
      ALERT_EMAIL_FROM: {
        default: 'unset: no alert email',
        description:
          'The From address of alert email, such as `Card Console <alerts@example.com>`; its domain names the Message-IDs.',
      },
      ALERT_WEBHOOK_ALLOW_INSECURE: {
        default: 'unset: `https:` only',
        description:
          '`1` lets a webhook target use `http:` (development: the alert and its signature travel in the clear).',
      },
      ALERT_WEBHOOK_ALLOW_PRIVATE: {
        default: 'unset: public addresses only',
        description:
          '`1` lets a webhook target point at a private, loopback, link-local or unique-local address (checked when saved and on every connection); `0.0.0.0` and `::` stay refused.',
      },
      ALERT_DELIVERY_MAX_ATTEMPTS: {
        default: '5',
        description:
          '1 to 20: tries of one email or webhook post in all, a try whose replica stopped before it ended included. Network errors, timeouts, 408, 429 and 5xx answers and SMTP deferrals are tried again; the rest end at once. A delivery that fails for good is logged.',
      },
      ALERT_DELIVERY_RETRY_BASE_MS: {
        default: '30000',
        description:
          '10 to 3,600,000: the wait after a first failed try; each next one doubles, to an hour at most.',
      },
      ALERT_DELIVERY_POLL_MS: {
        default: '2000',
        description: '50 to 600,000: how often each replica looks for deliveries that are due.',
      },
      ALERT_DELIVERY_TIMEOUT_MS: {
        default: '10000',
        description:
          '100 to 120,000: one webhook post (connecting to the end of the answer), or each step of an SMTP conversation.',
      },
      ALERT_RULES_PER_PERSON: {
        default: '50',
        description:
          "1 to 1,000: the alert rules one person keeps; the team's rules count as one more person's. A rule past it is refused with 409 `too_many_alert_rules` (counted under a lock, so two replicas cannot both add the last one). A rule identical to one the person (or the team) has is refused with 409 `alert_rule_exists`: [alerts](../apps/bff/src/features/alerts/README.md#limits).",
      },
      ALERT_EMAILS_PER_HOUR: {
        default: '20',
        description:
          "1 to 10,000: the alert emails one recipient gets one by one in any hour; the rest are listed in that recipient's digest once the UTC day is over (and are in their inbox at once). Webhooks and the inbox are not capped.",
      },
      ALERT_REFRESH_SECONDS: {
        default: '60; 10 in demo mode',
        description:
          "0 to 3,600: while any alert rule is on, every this many seconds each BFF process asks for the days that can still change (today, the last three days, days with pending transactions) to be read again, as a read of the transaction index would: those read `INSIGHTS_REFRESH_SECONDS` ago or more are synced (one sync per sub account across replicas), and the alerts evaluate what arrives, though nobody has a list open. About two pages per sub account each time, at the card service's pace, after people's own requests. With no rule on it reads nothing. 0: alerts come only when someone's reads sync the days. Demo mode's 10 (its card service is in the process) and its living demo's decline at least every 90 s let a \"declined\" rule set there be seen firing within 3 minutes.",
      },
    },
  },
  {
    title: 'Operations',
    variables: {
      METRICS_PORT: {
        default: 'unset: no metrics server',
        description:
          'Prometheus metrics at `GET /metrics` on this port, never on `PORT` (it must differ; there `/metrics` is a 404). `0` picks a free port. Series and alerts: [ops/prometheus](../ops/prometheus/README.md).',
      },
      METRICS_HOST: {
        default: '127.0.0.1',
        description:
          'Where the metrics port listens. A Prometheus on another host needs `0.0.0.0` (and a firewall rule that lets only it in).',
      },
      LOG_LEVEL: {
        default: 'info',
        description:
          'One JSON line per event on stdout at this level or above: `fatal`, `error`, `warn`, `info`, `debug`, `trace`, or `silent`.',
      },
      SHUTDOWN_GRACE_SECONDS: {
        default: '10',
        description:
          '0 to 600: after SIGTERM, how long requests in flight may run before they are cut (an export then breaks off) and the process exits.',
      },
    },
  },
  {
    title: 'Demo and development',
    variables: {
      DEMO_MODE: {
        default: 'unset: production',
        description:
          '`1` or `true` asks for demo mode (`pnpm start` and `pnpm dev` set it and run the demo entry point): the built-in simulator, the public demo accounts and the demo identity provider. A set `CARD_API_BASE_URL` overrides it; demo mode is never what a forgotten or mistyped variable gives, and the production command refuses to start with it.',
      },
      DEMO_TRANSACTIONS: {
        default: '20000',
        description:
          'Demo mode only: how many transactions the in-process simulator generates (up to 1,000,000).',
      },
      DEMO_LIVE_PER_MINUTE: {
        default: '2',
        description:
          'Demo mode only, 0 to 60: card transactions that keep arriving, on average, each minute of working hours (a tenth of that outside them), about 15 % declined and 10 % refunds, and a decline at least every 90 s at any hour (so a "declined" rule set in the demo fires within minutes whenever someone tries it), at cards and merchants of the demo\'s data, so alerts fire and lists have something new. What arrives in a minute is decided by the seed and that minute, so the same clock brings the same transactions. 0 freezes the demo (the browser tests do).',
      },
      DEMO_LIVE_HOURS: {
        default: '8-19',
        description:
          "Demo mode only: the living demo's working hours, Monday to Friday in New York, from the first hour until the second (`0-24`: all day).",
      },
      WEB_DIST: {
        default: '`apps/web/dist`',
        description: 'The built SPA the BFF serves (without it, a "not built" page).',
      },
      INIT_CWD: {
        default: 'set by pnpm',
        description:
          'Not set by hand: pnpm sets it to the directory it was started from, and relative paths in `USERS_FILE`, `DATA_DIR` and `WEB_DIST` are resolved against it (else against the working directory).',
      },
    },
  },
];

/** `pnpm sim`: the simulator alone (`apps/card-service-sim/src/env.ts`). */
export const simulatorVariables: Readonly<Record<string, VariableDoc>> = {
  PORT: { default: '4010', description: 'Where the simulator listens (on `127.0.0.1`).' },
  CARD_API_KEY: {
    default: 'demo-key',
    description: 'The `x-api-key` it accepts; anything else is a 403.',
  },
  SIM_SEED: {
    default: '42',
    description: 'The seed its generated data comes from: the same seed, the same data.',
  },
  SIM_TRANSACTIONS: {
    default: '20000',
    description: 'How many transactions it generates (up to 5,000,000).',
  },
  SIM_TEST_HOOKS: {
    default: '0',
    description:
      'For tests only: `1` serves `POST /__testing/transactions` (a new transaction dated now, outside the card service contract; the key is checked), which the browser tests use to make a decline appear. Refused with `NODE_ENV=production`.',
  },
  NODE_ENV: {
    default: 'not set',
    description: 'Read only to refuse `SIM_TEST_HOOKS=1` when it is `production`.',
  },
};

/** A variable read by something other than our configuration schemas. */
export interface OtherVariableDoc extends VariableDoc {
  /** Files (from the repository root) that read or set it: each must name it. */
  readBy: readonly string[];
}

export const otherGroups: readonly {
  title: string;
  intro: string;
  variables: Readonly<Record<string, OtherVariableDoc>>;
}[] = [
  {
    title: 'Read by Node.js and glibc',
    intro: "Not read by our code: set in the environment of the BFF's one node process.",
    variables: {
      MALLOC_TRIM_THRESHOLD_: {
        default: '131072 in the production command',
        description:
          'Makes glibc hand freed native memory back to the system (15 to 30 MB less at peak). Part of the production command and the `serve` script ([why](decisions/0003-memory-settings.md)).',
        readBy: ['apps/bff/package.json', 'Dockerfile'],
      },
      NODE_EXTRA_CA_CERTS: {
        default: 'unset',
        description:
          "A PEM file of extra certificate authorities, read once at start: needed when the identity provider (or the card service) has a certificate from a private CA, e.g. `/etc/ssl/certs/company-ca.pem`. Also used by `pnpm test:container` for the image build's install steps.",
        readBy: ['apps/bff/src/deploy/container-image.podman.ts'],
      },
    },
  },
  {
    title: 'Tests and tooling',
    intro: 'Read by the test harness and `scripts/`, never by the product.',
    variables: {
      TEST_DATABASE_URL: {
        default: 'unset: tests start their own PostgreSQL',
        description: 'A PostgreSQL (as a superuser) for the audit store tests to use instead.',
        readBy: ['apps/bff/src/test/engines/postgres.ts'],
      },
      CHROMIUM_PATH: {
        default: '/usr/bin/chromium-headless-shell',
        description:
          'The Chromium the e2e tests and the browser benchmark drive (Debian’s `chromium-headless-shell` by default; the full `chromium` works too).',
        readBy: ['apps/web/e2e/support/browser.ts', 'scripts/ensure-chromium.mjs'],
      },
      POSTGRES_BIN_DIR: {
        default: 'the newest `/usr/lib/postgresql/*/bin`',
        description: 'Where the tests find `initdb` and `postgres`.',
        readBy: ['apps/bff/src/test/engines/postgres.ts', 'scripts/debian-packages.mjs'],
      },
      HAPROXY_PATH: {
        default: '/usr/sbin/haproxy',
        description: 'The `haproxy` the replica tests and the scale-out benchmark start.',
        readBy: ['apps/bff/src/test/engines/haproxy.ts'],
      },
      NODE_IMAGE: {
        default: "unset: made locally from Debian's packages",
        description:
          "`pnpm test:container`: the Debian-based node image to build on, passed as the Dockerfile's `NODE_IMAGE` build argument.",
        readBy: ['apps/bff/src/deploy/container-image.podman.ts'],
      },
    },
  },
];

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (name: string) => `\`${name}\``;
/** A default is shown as code when it is a bare value, as prose when it explains itself. */
const shownDefault = (value: string) =>
  /^[\w./:@-]+$/.test(value) && !/^(none|unset)$/.test(value) ? code(value) : value;

function table(variables: Readonly<Record<string, VariableDoc>>): string[] {
  return [
    '| variable | default | what it does |',
    '| --- | --- | --- |',
    ...Object.entries(variables).map(
      ([name, doc]) =>
        `| ${code(name)} | ${cell(shownDefault(doc.default))} | ${cell(doc.description)} |`,
    ),
  ];
}

/** The whole of `docs/configuration.md`. */
export function renderConfigurationDoc(): string {
  const lines = [
    '<!-- Generated from apps/bff/src/config-docs.ts by `node scripts/config-docs.mjs`: edit that file, not this one. -->',
    '# Configuration',
    '',
    'Every environment variable, described here and nowhere else. The BFF reads its own in one',
    'place, `apps/bff/src/env.ts`, at start-up: a bad value stops start-up with a message naming',
    'the variable, before anything listens (`pnpm start` checks the configuration before it',
    'builds). An empty variable counts as unset.',
    '',
    [...bffGroups.map((g) => g.title), 'The simulator', ...otherGroups.map((g) => g.title)]
      .map((title) => `[${title}](#${slug(title)})`)
      .join(' · '),
    '',
    '## The BFF',
    '',
  ];
  for (const group of bffGroups) {
    lines.push(`### ${group.title}`, '');
    if (group.intro) lines.push(group.intro, '');
    lines.push(...table(group.variables), '');
  }
  lines.push(
    '## The simulator',
    '',
    '`pnpm sim` runs the card service simulator alone (`apps/card-service-sim/src/env.ts`). In demo',
    'mode the BFF starts it in its own process instead, with a random key, and reads none of these.',
    '',
    ...table(simulatorVariables),
    '',
  );
  for (const group of otherGroups) {
    lines.push(`## ${group.title}`, '', group.intro, '', ...table(group.variables), '');
  }
  lines.push(
    "The benchmarks' own variables are described at the top of each file under `bench/`, and the",
    'variables `compose.yaml` reads from `.env` in its comments.',
    '',
  );
  return lines.join('\n');
}

/** GitHub's anchor for a heading. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
