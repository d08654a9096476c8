// Distinct card-list queries for an uncoalesced read load: every page of every filter the card
// screen offers (status, sort, direction), each with the cursor the service issued for it. The
// BFF shares one upstream call among identical reads in flight; queries that all differ keep
// that from standing in for the read path being measured.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCardService } from '@card-console/card-service-sim';
import { cardStatuses } from '@card-console/shared/upstream/card';
import { startTs } from './child';

export interface CardQuery {
  /** The card service's own path, as a direct call asks for the page. */
  upstream: string;
  /** The same page through the BFF. */
  api: string;
}

/** Walks every filter's pages on the card service and returns one query per page. */
export async function collectCardQueries(
  upstreamUrl: string,
  apiKey: string,
): Promise<CardQuery[]> {
  const queries: CardQuery[] = [];
  for (const status of [undefined, ...cardStatuses]) {
    for (const sort of ['createdAt', 'name'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        let cursor: string | undefined;
        do {
          const up = new URLSearchParams({ sort, sortDirection: direction.toUpperCase() });
          const api = new URLSearchParams({ sort, direction });
          if (status) {
            up.set('filter:status', status);
            api.set('status', status);
          }
          if (cursor) {
            up.set('cursor', cursor);
            api.set('cursor', cursor);
          }
          const upstream = `/card?${up}`;
          queries.push({ upstream, api: `/api/cards?${api}` });
          const res = await fetch(`${upstreamUrl}${upstream}`, {
            headers: { 'x-api-key': apiKey },
          });
          if (!res.ok) throw new Error(`card service answered ${res.status} to ${upstream}`);
          const page = (await res.json()) as { metadata: { nextCursor?: string } };
          cursor = page.metadata.nextCursor;
        } while (cursor);
      }
    }
  }
  return queries;
}

/**
 * Deals the queries out to `people` (after a fixed shuffle, so each gets every kind): no two
 * people ever hold the same query, so no two requests in flight can share an upstream call.
 */
export function dealQueries<T>(queries: readonly T[], people: number): T[][] {
  const shuffled = [...queries];
  let seed = 7;
  for (let i = shuffled.length - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = seed % (i + 1);
    [shuffled[i], shuffled[j]] = [shuffled[j] as T, shuffled[i] as T];
  }
  const hands: T[][] = Array.from({ length: people }, (_, p) =>
    shuffled.filter((_, i) => i % people === p),
  );
  if (hands.some((h) => h.length === 0)) throw new Error(`fewer queries than ${people} people`);
  return hands;
}

/**
 * A real ~25-card page from the simulator, written to a file: the static upstream
 * (`bench/servers/static-upstream.ts`) answers it to every query.
 */
export async function captureCardPage(apiKey: string): Promise<string> {
  const sim = createCardService({ apiKey, rateLimit: false });
  const { url } = await sim.listen(0);
  const res = await fetch(`${url}/card`, { headers: { 'x-api-key': apiKey } });
  const body = await res.text();
  await sim.close();
  const file = join(tmpdir(), `cc-bench-card-page-${process.pid}.json`);
  writeFileSync(file, body);
  return file;
}

/** Every page of every filter, sort and direction of a 4,000-card simulator in its own process. */
export async function benchCardQueries(apiKey: string): Promise<CardQuery[]> {
  const sim = await startTs('bench/lib/paged-card-service.ts', {
    env: { API_KEY: apiKey },
    ready: /^READY \d+/,
  });
  try {
    return await collectCardQueries(
      `http://127.0.0.1:${sim.readyLine.trim().split(' ')[1]}`,
      apiKey,
    );
  } finally {
    await sim.stop();
  }
}
