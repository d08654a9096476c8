import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadMigrationConfig } from './env';

const production = {
  CARD_API_BASE_URL: 'https://cards.example.com/v1',
  CARD_API_KEY: 'k',
  USERS_FILE: '/etc/card-console/users.json',
  SESSION_SECRET: 's'.repeat(40),
  TOTP_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  PUBLIC_ORIGIN: 'https://console.example.com',
};

function messageOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected loadConfig to refuse');
}

describe('configuration', () => {
  it('without a card service and without DEMO_MODE, refuses to start, naming what production needs', () => {
    for (const env of [
      {} as Record<string, string>,
      { CARD_API_BASEURL: 'https://cards.example.com' },
      { DEMO_MODE: '0' },
    ]) {
      const message = messageOf(env);
      for (const name of [
        'CARD_API_BASE_URL: required',
        'CARD_API_KEY: required',
        'USERS_FILE or OIDC_ISSUER',
        'SESSION_SECRET: required',
        'PUBLIC_ORIGIN: required',
      ]) {
        expect(message).toContain(name);
      }
      expect(message).toContain('DEMO_MODE=1');
    }
    expect(messageOf({ DEMO_MODE: 'yes' })).toContain('DEMO_MODE: must be 1 or true');
  });

  it('with a card service configured, DEMO_MODE changes nothing: production', () => {
    expect(loadConfig({ ...production, DEMO_MODE: '1' }).mode).toBe('production');
  });

  it('demo mode when asked for, on localhost:3000 with a plain-http cookie', () => {
    const config = loadConfig({ DEMO_MODE: '1' });
    expect(config).toMatchObject({
      mode: 'demo',
      port: 3000,
      host: '127.0.0.1',
      publicOrigin: 'http://localhost:3000',
      cardApiBaseUrl: undefined,
      cookie: { name: 'cc_session', secure: false },
      trustProxy: false,
      logLevel: 'info',
    });
    expect(config.sessionSecret.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({ DEMO_MODE: '1' }).sessionSecret).not.toBe(config.sessionSecret);
  });

  it('follows PORT in the default public origin', () => {
    expect(loadConfig({ DEMO_MODE: '1', PORT: '8080' }).publicOrigin).toBe('http://localhost:8080');
  });

  it('in demo mode with no PUBLIC_ORIGIN, accepts mutations from every loopback spelling', () => {
    expect(loadConfig({ DEMO_MODE: '1', PORT: '8080' }).allowedOrigins).toEqual([
      'http://localhost:8080',
      'http://127.0.0.1:8080',
      'http://[::1]:8080',
    ]);
  });

  it('with PUBLIC_ORIGIN set, or in production, accepts mutations from that origin only', () => {
    expect(
      loadConfig({ DEMO_MODE: '1', PUBLIC_ORIGIN: 'http://127.0.0.1:3000' }).allowedOrigins,
    ).toEqual(['http://127.0.0.1:3000']);
    expect(loadConfig(production).allowedOrigins).toEqual([loadConfig(production).publicOrigin]);
  });

  it('is production when the upstream is configured, with the __Host- Secure cookie', () => {
    const config = loadConfig(production);
    expect(config.mode).toBe('production');
    expect(config.cookie).toEqual({ name: '__Host-cc_session', secure: true });
    expect(config.usersFile).toBe('/etc/card-console/users.json');
  });

  it.each([
    ['CARD_API_KEY', { ...production, CARD_API_KEY: '' }],
    ['USERS_FILE or OIDC_ISSUER', { ...production, USERS_FILE: '' }],
    ['SESSION_SECRET', { ...production, SESSION_SECRET: '' }],
    ['PUBLIC_ORIGIN', { ...production, PUBLIC_ORIGIN: 'http://console.example.com' }],
    ['PUBLIC_ORIGIN', { ...production, PUBLIC_ORIGIN: '' }],
    ['CARD_API_KEY', { DEMO_MODE: '1', CARD_API_KEY: 'a key without a base URL' }],
  ])('refuses to start without a good %s, naming it', (name, env) => {
    expect(messageOf(env)).toContain(`${name}:`);
  });

  it("refuses the schema owner's DATABASE_MIGRATION_URL for the server (production or demo), never echoing it", () => {
    const owner = 'postgres://card_console_owner:0wner-pw@db.example.com/card_console';
    const app = 'postgres://card_console:app-pw@db.example.com/card_console';
    const envs: Record<string, string>[] = [
      { ...production, DATABASE_URL: app, DATABASE_MIGRATION_URL: owner },
      { DEMO_MODE: '1', DATABASE_MIGRATION_URL: owner },
    ];
    for (const env of envs) {
      const message = messageOf(env);
      expect(message).toMatch(/DATABASE_MIGRATION_URL: set for the server; .*`pnpm migrate`/);
      expect(message).not.toContain('0wner-pw');
    }
    expect(loadConfig({ ...production, DATABASE_URL: app }).databaseUrl).toBe(app);
  });

  it('gives `pnpm migrate` the owner URL alone, and refuses it missing or malformed', () => {
    const owner = 'postgres://card_console_owner:0wner-pw@db.example.com/card_console';
    expect(loadMigrationConfig({ DATABASE_MIGRATION_URL: owner })).toEqual({
      migrationUrl: owner,
    });
    expect(() => loadMigrationConfig({})).toThrow(/DATABASE_MIGRATION_URL: required/);
    expect(() =>
      loadMigrationConfig({ DATABASE_MIGRATION_URL: 'mysql://o:0wner-pw@db/x' }),
    ).toThrow(/DATABASE_MIGRATION_URL: must be a URL such as postgres:/);
  });

  describe('single sign-on', () => {
    const sso = {
      OIDC_ISSUER: 'https://example.okta.com',
      OIDC_CLIENT_ID: 'card-console',
      OIDC_CLIENT_SECRET: 'a-client-secret',
      OIDC_ROLE_MAP: 'card-admins=admin, finance-team=finance',
    };

    it('reads the provider, the role claim and the map; production may use it without a users file', () => {
      const config = loadConfig({ ...production, USERS_FILE: '', ...sso });
      expect(config.usersFile).toBeUndefined();
      expect(config.sso).toEqual({
        issuer: 'https://example.okta.com',
        clientId: 'card-console',
        clientSecret: 'a-client-secret',
        roleClaim: 'groups',
        roleMap: { 'card-admins': 'admin', 'finance-team': 'finance' },
        emailVerifiedClaim: 'email_verified',
        scopes: ['email', 'profile'],
        label: 'SSO',
      });
    });

    it('demo mode has its own provider; production without OIDC_* has none', () => {
      expect(loadConfig({ DEMO_MODE: '1' }).sso).toBe('demo');
      expect(loadConfig(production).sso).toBeUndefined();
    });

    it.each([
      [{ ...sso, OIDC_CLIENT_SECRET: '' }, 'set all three, or none'],
      [{ ...sso, OIDC_ISSUER: 'http://idp.example.com' }, 'OIDC_ISSUER: must be https://'],
      [{ ...sso, OIDC_ROLE_MAP: '' }, 'OIDC_ROLE_MAP: required'],
      [{ ...sso, OIDC_ROLE_MAP: 'card-admins=owner' }, 'OIDC_ROLE_MAP: "card-admins=owner"'],
      [{ ...sso, OIDC_ROLE_MAP: '=admin' }, 'OIDC_ROLE_MAP: "=admin"'],
      [{ OIDC_ROLE_MAP: 'a=admin' }, 'OIDC_ROLE_MAP: set without OIDC_ISSUER'],
      [{ ...sso, OIDC_ROLE_CLAIM: 'preferred_username' }, 'OIDC_ROLE_CLAIM: "preferred_username"'],
      [{ ...sso, OIDC_ROLE_CLAIM: 'name' }, 'OIDC_ROLE_CLAIM: "name" is a profile claim'],
      [{ ...sso, SSO_STARTS_PER_ADDRESS_PER_MINUTE: '0' }, 'SSO_STARTS_PER_ADDRESS_PER_MINUTE:'],
      [{ ...sso, OIDC_EMAIL_VERIFIED_CLAIM: 'a b' }, 'OIDC_EMAIL_VERIFIED_CLAIM:'],
    ])('refuses a bad single sign-on setting, naming it (%#)', (env, message) => {
      expect(messageOf({ ...production, ...env })).toContain(message);
    });

    it('maps roles from a group or role claim, or from email (which counts only when verified)', () => {
      for (const claim of ['groups', 'roles', 'email']) {
        expect(loadConfig({ ...production, ...sso, OIDC_ROLE_CLAIM: claim }).sso).toMatchObject({
          roleClaim: claim,
        });
      }
    });

    it('reads which claim vouches for the email (Entra ID: xms_edov)', () => {
      const config = loadConfig({ ...production, ...sso, OIDC_EMAIL_VERIFIED_CLAIM: 'xms_edov' });
      expect(config.sso).toMatchObject({ emailVerifiedClaim: 'xms_edov' });
    });

    it('lets an office behind one address start more single sign-ons a minute', () => {
      expect(loadConfig(production).rateLimits.ssoStartsPerAddressPerMinute).toBe(60);
      const config = loadConfig({ ...production, SSO_STARTS_PER_ADDRESS_PER_MINUTE: '600' });
      expect(config.rateLimits.ssoStartsPerAddressPerMinute).toBe(600);
    });

    it('allows a plain-http provider on loopback only (a local test provider)', () => {
      const config = loadConfig({ ...production, ...sso, OIDC_ISSUER: 'http://127.0.0.1:9000' });
      expect(config.sso).toMatchObject({ issuer: 'http://127.0.0.1:9000' });
    });
  });

  it('in production, says PUBLIC_ORIGIN is required rather than falling back to localhost', () => {
    const { PUBLIC_ORIGIN: _unset, ...withoutOrigin } = production;
    expect(messageOf(withoutOrigin)).toMatch(/PUBLIC_ORIGIN: required/);
  });

  it.each([
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['PUBLIC_ORIGIN', { PUBLIC_ORIGIN: 'https://console.example.com/app' }],
    ['PUBLIC_ORIGIN', { PUBLIC_ORIGIN: 'javascript:alert(1)' }],
    ['CARD_API_BASE_URL', { CARD_API_BASE_URL: 'ftp://cards.example.com' }],
    ['SESSION_SECRET', { SESSION_SECRET: 'short' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'yes please' }],
  ])('names %s when its value is bad', (name, env) => {
    expect(messageOf(env)).toContain(`${name}:`);
  });

  it.each([
    ['a plain-http host name', 'http://cards.example.com/v1'],
    ['a plain-http address', 'http://10.0.0.7:8080'],
    ['a plain-http name that only starts like loopback', 'http://127.0.0.1.example.com'],
    ['an upper-case HTTP scheme', 'HTTP://cards.example.com'],
  ])('in production, refuses %s for CARD_API_BASE_URL, naming it', (_what, url) => {
    const message = messageOf({ ...production, CARD_API_BASE_URL: url });
    expect(message).toContain('CARD_API_BASE_URL:');
    expect(message).toContain('https://');
  });

  it.each([
    ['localhost', 'http://localhost:4010'],
    ['127.0.0.1', 'http://127.0.0.1:4010/v1'],
    ['elsewhere in 127.0.0.0/8', 'http://127.8.9.10:4010'],
    ['::1', 'http://[::1]:4010'],
  ])('in production, accepts plain http to loopback (%s)', (_what, url) => {
    expect(loadConfig({ ...production, CARD_API_BASE_URL: url }).cardApiBaseUrl).toBe(url);
  });

  it('reads TRUST_PROXY as Express wants it', () => {
    expect(loadConfig({ DEMO_MODE: '1', TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ DEMO_MODE: '1', TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ DEMO_MODE: '1', TRUST_PROXY: '10.0.0.0/8' }).trustProxy).toBe('10.0.0.0/8');
  });

  it('reads the open days for the alerts every 60 s, every 10 s in demo mode, or as told', () => {
    expect(loadConfig(production).alertRefreshMs).toBe(60_000);
    expect(loadConfig({ DEMO_MODE: '1' }).alertRefreshMs).toBe(10_000);
    expect(loadConfig({ DEMO_MODE: '1', ALERT_REFRESH_SECONDS: '0' }).alertRefreshMs).toBe(0);
    expect(loadConfig({ ...production, ALERT_REFRESH_SECONDS: '120' }).alertRefreshMs).toBe(
      120_000,
    );
    expect(messageOf({ DEMO_MODE: '1', ALERT_REFRESH_SECONDS: '1.5' })).toContain(
      'ALERT_REFRESH_SECONDS: must be a whole number of seconds',
    );
  });

  it('caps exports at 2 per person and 8 in all, each at 30 minutes, unless told otherwise', () => {
    expect(loadConfig({ DEMO_MODE: '1' }).exportCaps).toEqual({
      perPerson: 2,
      total: 8,
      lifetimeMs: 30 * 60_000,
    });
    expect(
      loadConfig({
        DEMO_MODE: '1',
        EXPORTS_PER_PERSON: '1',
        EXPORTS_TOTAL: '20',
        EXPORT_MAX_MINUTES: '90',
      }).exportCaps,
    ).toEqual({
      perPerson: 1,
      total: 20,
      lifetimeMs: 90 * 60_000,
    });
    expect(messageOf({ EXPORTS_PER_PERSON: '0' })).toContain('EXPORTS_PER_PERSON:');
    expect(messageOf({ EXPORTS_TOTAL: 'many' })).toContain('EXPORTS_TOTAL:');
    expect(messageOf({ EXPORT_MAX_MINUTES: '0' })).toContain('EXPORT_MAX_MINUTES:');
  });

  it('holds a receipts ZIP to 500 files and 1 GB unless told otherwise', () => {
    expect(loadConfig({ DEMO_MODE: '1' }).receiptsZip).toEqual({
      maxFiles: 500,
      maxBytes: 1024 * 1024 * 1024,
    });
    const told = loadConfig({
      DEMO_MODE: '1',
      RECEIPTS_ZIP_MAX_FILES: '50',
      RECEIPTS_ZIP_MAX_MB: '200',
    });
    expect(told.receiptsZip).toEqual({ maxFiles: 50, maxBytes: 200 * 1024 * 1024 });
    expect(messageOf({ RECEIPTS_ZIP_MAX_FILES: '0' })).toContain('RECEIPTS_ZIP_MAX_FILES:');
    expect(messageOf({ RECEIPTS_ZIP_MAX_MB: '1.5' })).toContain('RECEIPTS_ZIP_MAX_MB:');
  });

  it('keeps 50 alert rules per person and emails 20 an hour to one recipient unless told otherwise', () => {
    expect(loadConfig({ DEMO_MODE: '1' }).alertLimits).toEqual({
      rulesPerPerson: 50,
      emailsPerHour: 20,
    });
    const told = loadConfig({
      DEMO_MODE: '1',
      ALERT_RULES_PER_PERSON: '10',
      ALERT_EMAILS_PER_HOUR: '3',
    });
    expect(told.alertLimits).toEqual({ rulesPerPerson: 10, emailsPerHour: 3 });
    expect(messageOf({ ALERT_RULES_PER_PERSON: '0' })).toContain('ALERT_RULES_PER_PERSON:');
    expect(messageOf({ ALERT_EMAILS_PER_HOUR: 'lots' })).toContain('ALERT_EMAILS_PER_HOUR:');
  });

  it('caps previews and Overview walks at 2 per person and 4 in all unless told otherwise', () => {
    expect(loadConfig({ DEMO_MODE: '1' }).walkCaps).toEqual({ perPerson: 2, total: 4 });
    const told = loadConfig({ DEMO_MODE: '1', WALKS_PER_PERSON: '1', WALKS_TOTAL: '12' });
    expect(told.walkCaps).toEqual({ perPerson: 1, total: 12 });
    expect(messageOf({ WALKS_PER_PERSON: '0' })).toContain('WALKS_PER_PERSON:');
    expect(messageOf({ WALKS_TOTAL: 'many' })).toContain('WALKS_TOTAL:');
  });

  it('keeps 128 MB of Overview days in memory unless told another number of megabytes', () => {
    expect(loadConfig({ DEMO_MODE: '1' }).insightsMemoryBytes).toBe(128 * 1024 * 1024);
    expect(loadConfig({ DEMO_MODE: '1', INSIGHTS_MEMORY_MB: '16' }).insightsMemoryBytes).toBe(
      16 * 1024 * 1024,
    );
    expect(messageOf({ INSIGHTS_MEMORY_MB: '0' })).toContain('INSIGHTS_MEMORY_MB:');
    expect(messageOf({ INSIGHTS_MEMORY_MB: '1.5' })).toContain('INSIGHTS_MEMORY_MB:');
  });

  it('warns at a $50,000 maximum per transaction unless told another number of dollars', () => {
    expect(loadConfig({ DEMO_MODE: '1' }).limitWarningMaximumCents).toBe(50_000_00);
    expect(
      loadConfig({ DEMO_MODE: '1', LIMIT_WARNING_MAXIMUM_USD: '' }).limitWarningMaximumCents,
    ).toBe(50_000_00);
    expect(
      loadConfig({ DEMO_MODE: '1', LIMIT_WARNING_MAXIMUM_USD: '10000' }).limitWarningMaximumCents,
    ).toBe(10_000_00);
    expect(
      loadConfig({ DEMO_MODE: '1', LIMIT_WARNING_MAXIMUM_USD: '1' }).limitWarningMaximumCents,
    ).toBe(100);
    expect(
      loadConfig({ DEMO_MODE: '1', LIMIT_WARNING_MAXIMUM_USD: '100000000' })
        .limitWarningMaximumCents,
    ).toBe(100_000_000_00);
  });

  it.each([
    ['zero', '0'],
    ['a negative amount', '-5'],
    ['cents', '12500.50'],
    ['a word', 'lots'],
    ['a currency sign', '$10000'],
    ['more than the card service allows', '100000001'],
  ])('refuses %s for LIMIT_WARNING_MAXIMUM_USD, naming it', (_what, value) => {
    expect(messageOf({ LIMIT_WARNING_MAXIMUM_USD: value })).toContain('LIMIT_WARNING_MAXIMUM_USD:');
  });

  it('resolves relative paths against the directory pnpm was started from', () => {
    const config = loadConfig({
      DEMO_MODE: '1',
      INIT_CWD: '/srv/app',
      DATA_DIR: 'state',
      WEB_DIST: 'web',
    });
    expect(config.dataDir).toBe('/srv/app/state');
    expect(config.webDist).toBe('/srv/app/web');
  });

  it('refuses a malformed DATABASE_URL, and any REDIS_URL (no longer used), naming the variable, never echoing it', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig({ DEMO_MODE: '1', ...env });
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    // Redis held the replicas' shared state until PostgreSQL took it over: a deployment still
    // naming it is told so at start, instead of running as if its replicas shared through it.
    const redis = refusal({
      REDIS_URL: 'rediss://:s3cret-pw@cache.example.com:6380',
      DATABASE_URL: 'postgresql://app:pw@db.example.com/cards',
    });
    expect(redis).toMatch(/^ {2}REDIS_URL: set, but Card Console no longer uses Redis/m);
    expect(redis).toMatch(/pnpm migrate/);
    expect(redis).not.toContain('s3cret-pw');
    expect(refusal({ REDIS_URL: '' })).toBe('accepted');
    const database = refusal({ DATABASE_URL: 'mysql://app:s3cret-pw@db/cards' });
    expect(database).toMatch(/^ {2}DATABASE_URL: must be a URL such as postgres:/m);
    expect(database).not.toContain('s3cret-pw');
    expect(refusal({ DATABASE_MIGRATION_URL: 'mysql://owner:s3cret-pw@db/cards' })).toMatch(
      /^ {2}DATABASE_MIGRATION_URL: must be a URL such as postgres:/m,
    );
    expect(refusal({ METRICS_PORT: '3000', PORT: '3000' })).toMatch(/METRICS_PORT: must differ/);
    const config = loadConfig({
      DEMO_MODE: '1',
      DATABASE_URL: 'postgresql://app:pw@db.example.com/cards',
      METRICS_PORT: '9100',
    });
    expect(config.databaseUrl).toBe('postgresql://app:pw@db.example.com/cards');
    expect(config.metrics).toEqual({ port: 9100, host: '127.0.0.1' });
    expect(config.shutdownGraceMs).toBe(10_000);
  });

  it('alert delivery: email with both ALERT_SMTP_URL and ALERT_EMAIL_FROM or neither, webhooks https and public unless allowed', () => {
    const demo = { DEMO_MODE: '1' };
    expect(loadConfig(demo).alertDelivery).toEqual({
      smtpUrl: undefined,
      emailFrom: undefined,
      webhook: { allowInsecure: false, allowPrivate: false },
      maxAttempts: 5,
      retryBaseMs: 30_000,
      pollMs: 2_000,
      timeoutMs: 10_000,
    });
    const set = loadConfig({
      ...demo,
      ALERT_SMTP_URL: 'smtps://alerts:pw@smtp.example.com:465',
      ALERT_EMAIL_FROM: 'Card Console <alerts@example.com>',
      ALERT_WEBHOOK_ALLOW_INSECURE: '1',
      ALERT_WEBHOOK_ALLOW_PRIVATE: 'true',
      ALERT_DELIVERY_MAX_ATTEMPTS: '3',
      ALERT_DELIVERY_RETRY_BASE_MS: '500',
    }).alertDelivery;
    expect(set).toMatchObject({
      smtpUrl: 'smtps://alerts:pw@smtp.example.com:465',
      emailFrom: 'Card Console <alerts@example.com>',
      webhook: { allowInsecure: true, allowPrivate: true },
      maxAttempts: 3,
      retryBaseMs: 500,
    });
    const refused = (env: Record<string, string>) => {
      try {
        loadConfig({ ...demo, ...env });
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    const scheme = refused({
      ALERT_SMTP_URL: 'http://alerts:s3cret-pw@smtp.example.com',
      ALERT_EMAIL_FROM: 'alerts@example.com',
    });
    expect(scheme).toMatch(/ALERT_SMTP_URL: must be a URL such as smtps:/);
    expect(scheme).not.toContain('s3cret-pw');
    expect(refused({ ALERT_SMTP_URL: 'smtp://smtp.example.com' })).toMatch(
      /ALERT_SMTP_URL and ALERT_EMAIL_FROM: set both/,
    );
    expect(refused({ ALERT_EMAIL_FROM: 'alerts@example.com' })).toMatch(/set both/);
    expect(
      refused({ ALERT_SMTP_URL: 'smtp://smtp.example.com', ALERT_EMAIL_FROM: 'no address' }),
    ).toMatch(/ALERT_EMAIL_FROM/);
    expect(refused({ ALERT_WEBHOOK_ALLOW_PRIVATE: 'yes' })).toMatch(/ALERT_WEBHOOK_ALLOW_PRIVATE/);
    expect(refused({ ALERT_DELIVERY_MAX_ATTEMPTS: '0' })).toMatch(/ALERT_DELIVERY_MAX_ATTEMPTS/);
  });
});
