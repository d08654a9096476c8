// People at work while the embedded engine takes a large first sync: the BFF as `pnpm start`
// runs it (no DATABASE_URL: the embedded engine on its own thread), against the simulator with
// 100,000 transactions (the browser flows' largest deployment) and its default rate limit, as
// demo mode runs it, no delay between them: the engine is busy with the sync's writes throughout. From the BFF's first
// sync on, one person after another signs in (every 2 s) and asks their own list every second,
// as the SPA asks while the index says syncing, each a different filter, until the index says
// synced. Every sign-in and every answer is timed: on the embedded engine, which runs one
// statement at a time, a person's statement waits for whatever was asked before it.
import { randomBytes } from 'node:crypto';
import type { IndexPage } from '@card-console/shared/api/transaction-index';
import { migrateAsOwner, prepareAuditDatabase } from '../apps/bff/src/test/engines/audit-database';
import { type PostgresEngine, startPostgres } from '../apps/bff/src/test/engines/postgres';
import { databaseReady, startBff } from './lib/bff';
import { startTs } from './lib/child';
import { freePort } from './lib/free-port';
import { fmt } from './lib/stats';

const TRANSACTIONS = 100_000;
const PEOPLE = 6;
/** How often the SPA asks again while the index says syncing. */
const ASK_EVERY_MS = 1_000;
const SIGN_IN_EVERY_MS = 2_000;
/** What a person waits at most for a list or a sign-in while a sync writes (decision 0127). */
export const SLOWEST_GOAL_MS = 1_000;

/** Each person's list: a filter of their own, as different people look for different rows. */
const LISTS = [
  '/api/index/transactions',
  '/api/index/transactions?status=declined',
  '/api/index/transactions?sort=amount&direction=desc',
  '/api/index/transactions?minCents=5000',
  '/api/index/transactions?review=unreviewed',
  '/api/index/transactions?q=coffee',
];

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

interface Run {
  syncedS: number;
  answers: number[];
  signIns: number[];
}

/** One deployment's first sync with people at work (`env`: its engine), until synced. */
async function peopleDuringFirstSync(
  simUrl: string,
  apiKey: string,
  env: Record<string, string>,
): Promise<Run> {
  const bff = await startBff({ upstreamUrl: simUrl, apiKey, people: PEOPLE, env });
  try {
    // The engine's first open (a new cluster and its schema) is the deployment's, not the sync's.
    await databaseReady(bff.url);
    const answers: number[] = [];
    const signIns: number[] = [];
    let synced = false;
    const started = performance.now();
    let syncedAt = 0;
    const person = async (i: number) => {
      await new Promise((r) => setTimeout(r, i * SIGN_IN_EVERY_MS));
      if (synced) return;
      const signIn = await timed(() => bff.signIn(`bench${i}@example.test`));
      signIns.push(signIn.ms);
      const list = LISTS[i % LISTS.length] as string;
      while (!synced) {
        const asked = performance.now();
        const answer = await timed(async () => {
          const res = await fetch(`${bff.url}${list}`, {
            headers: { cookie: signIn.value, 'x-csrf': '1' },
          });
          if (!res.ok) throw new Error(`${list} answered ${res.status}: ${await res.text()}`);
          return (await res.json()) as IndexPage;
        });
        answers.push(answer.ms);
        if (!answer.value.freshness.syncing && answer.value.freshness.updatedAt !== undefined) {
          synced = true;
          syncedAt = performance.now() - started;
        }
        await new Promise((r) =>
          setTimeout(r, Math.max(0, asked + ASK_EVERY_MS - performance.now())),
        );
      }
    };
    await Promise.all(Array.from({ length: PEOPLE }, (_, i) => person(i)));
    return { syncedS: syncedAt / 1000, answers: answers.toSorted((a, b) => a - b), signIns };
  } finally {
    await bff.stop();
  }
}

const slowestOf = (r: Run) => Math.max(r.answers.at(-1) ?? 0, ...r.signIns);

export async function runListWhileSyncingBench(): Promise<{
  markdown: string;
  slowestMs: { embedded: number; postgres: number };
}> {
  const apiKey = randomBytes(16).toString('hex');
  const sim = await startTs('apps/card-service-sim/src/main.ts', {
    env: {
      PORT: String(await freePort()),
      CARD_API_KEY: apiKey,
      SIM_TRANSACTIONS: String(TRANSACTIONS),
    },
    ready: /listening on http/,
  });
  const simUrl = /(http:\/\/[^\s]+)/.exec(sim.readyLine)?.[1] as string;
  let postgres: PostgresEngine | undefined;
  try {
    const embedded = await peopleDuringFirstSync(simUrl, apiKey, {});
    // The simulator's rate limit refilled before the next deployment's sync.
    await new Promise((r) => setTimeout(r, 3_000));
    postgres = await startPostgres();
    const { ownerUrl, appUrl } = await prepareAuditDatabase(postgres, 'list_while_syncing');
    await migrateAsOwner(ownerUrl);
    const onPostgres = await peopleDuringFirstSync(simUrl, apiKey, { DATABASE_URL: appUrl });
    const line = (label: string, r: Run) =>
      `| ${label} | ${fmt(r.syncedS, 1)} s | ${r.answers.length}, ${fmt(percentile(r.answers, 0.5), 0)} / ${fmt(percentile(r.answers, 0.95), 0)} / ${fmt(r.answers.at(-1) ?? 0, 0)} ms | ${fmt(Math.max(...r.signIns), 0)} ms |`;
    const markdown = [
      `The BFF as \`pnpm start\` runs it, against the simulator with ${TRANSACTIONS.toLocaleString('en-US')} transactions (its default rate limit, no delay): the engine writes throughout the first sync. Once its \`/readyz\` answers (the engine's first open done), one of ${PEOPLE} people signs in every ${SIGN_IN_EVERY_MS / 1000} s and asks a list of their own filter every ${ASK_EVERY_MS / 1000} s, as the SPA asks while the index says syncing, until it says synced. The embedded engine (no DATABASE_URL, on its own thread), then PostgreSQL (DATABASE_URL, a database set up as the replicas' recipe says), each a fresh deployment.`,
      '',
      '| engine | BFF ready → the index says synced | people’s list answers meanwhile: count, p50 / p95 / slowest | slowest sign-in |',
      '|---|---|---|---|',
      line('embedded', embedded),
      line('PostgreSQL', onPostgres),
    ].join('\n');
    return {
      markdown,
      slowestMs: { embedded: slowestOf(embedded), postgres: slowestOf(onPostgres) },
    };
  } finally {
    await postgres?.stop();
    await sim.stop();
  }
}
