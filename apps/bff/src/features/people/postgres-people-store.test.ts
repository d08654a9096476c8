import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { INDEX_WRITER_ROLE } from '../../platform/sql/open-postgres';
import { postgresEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import { testDatabase } from '../../test/engines/postgres';
import { testTotpSecrets } from '../../test/totp-keys';
import { peopleRacesContract } from './people-races.contract';
import { peopleSecretsContract } from './people-secrets.contract';
import { PeopleStore } from './people-store';
import { fileUser, peopleStoreContract, quickHash, TOTP } from './people-store.contract';

let database: Awaited<ReturnType<typeof testDatabase>>;
beforeAll(async () => {
  database = await testDatabase();
  const owner = postgresEngine(new pg.Pool({ connectionString: database.url, max: 1 }));
  try {
    await applyIndexMigrations(owner, silentLogger);
  } finally {
    await owner.close();
  }
}, 60_000);
afterAll(() => database?.stop());

/** Two replicas: two pools on one database, several connections each. */
const open = async () => {
  const engines = [0, 1].map(() =>
    postgresEngine(new pg.Pool({ connectionString: database.url, max: 5 })),
  );
  return { engines, close: async () => void (await Promise.all(engines.map((e) => e.close()))) };
};

peopleStoreContract('PostgreSQL', open);
peopleRacesContract('PostgreSQL, two pools', open);
peopleSecretsContract('PostgreSQL', open, async () => {
  // A second database beside the first (the cluster's, or TEST_DATABASE_URL's server).
  const empty = await testDatabase();
  const engine = postgresEngine(new pg.Pool({ connectionString: empty.url, max: 2 }));
  return {
    engine,
    close: async () => {
      await engine.close();
      await empty.stop();
    },
  };
});

describe('the people store on PostgreSQL', () => {
  it("works as a login that holds only the index writer's role", async () => {
    // Roles belong to the cluster, which TEST_DATABASE_URL may share with other runs.
    const login = `people_app_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query(
        `CREATE ROLE ${login} LOGIN PASSWORD 'app-password' IN ROLE ${INDEX_WRITER_ROLE}`,
      );
      await admin.query('DELETE FROM person_invitation');
      await admin.query('DELETE FROM person_import');
      await admin.query('DELETE FROM person');
    } finally {
      await admin.end();
    }
    const url = new URL(database.url);
    url.username = login;
    url.password = 'app-password';
    const engine = postgresEngine(new pg.Pool({ connectionString: url.toString(), max: 2 }));
    try {
      const store = new PeopleStore(engine, undefined, testTotpSecrets());
      await store.importUsers([
        await fileUser('ana@example.test', 'admin'),
        await fileUser('bo@example.test', 'admin'),
      ]);
      const { token } = await store.invite(
        'new@example.test',
        'finance',
        'ana@example.test',
        60_000,
      );
      await store.acceptInvitation(token, await quickHash('pw'), TOTP);
      await store.changeRole('bo@example.test', 'finance');
      await store.disable('bo@example.test');
      await store.recordSignIn('ana@example.test', 'password');
      await store.remove('bo@example.test');
      expect((await store.list()).map((p) => p.email)).toEqual([
        'ana@example.test',
        'new@example.test',
      ]);
    } finally {
      await engine.close();
    }
  });
});
