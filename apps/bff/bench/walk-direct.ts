import { Agent, request } from 'undici';

/**
 * The reference for the export's speed: the same upstream walked page after page by a bare
 * client (one keep-alive connection, `JSON.parse`, the next cursor), with no checks, no CSV
 * and no client behind it. Pages come strictly one after another, so this is about as fast as
 * one cursor walk of this upstream goes on this machine; the export walks two date ranges at
 * once (`EXPORT_WALKS`) to get past it.
 */
export async function walkDirect(
  upstreamUrl: string,
  apiKey: string,
  subAccountId: string,
): Promise<{ rows: number; pages: number; ms: number }> {
  const started = performance.now();
  const walked = await bareCursorWalk(upstreamUrl, apiKey, { subAccountId });
  return { ...walked, ms: performance.now() - started };
}

/**
 * The simulator's own ceiling for a walk with as many pages in flight as the BFF keeps: the
 * span cut into `slices` equal time slices (inclusive millisecond bounds that touch without
 * overlapping), each walked by its own bare cursor on its own connection, all at once.
 */
export async function walkDirectSliced(
  upstreamUrl: string,
  apiKey: string,
  subAccountId: string,
  span: { from: number; to: number },
  slices: number,
): Promise<{ rows: number; pages: number; ms: number }> {
  const started = performance.now();
  const width = Math.ceil((span.to - span.from + 1) / slices);
  const done = await Promise.all(
    Array.from({ length: slices }, (_, i) => {
      const from = span.from + i * width;
      const to = Math.min(span.to, from + width - 1);
      return bareCursorWalk(upstreamUrl, apiKey, {
        subAccountId,
        from_date: String(from),
        to_date: String(to),
      });
    }),
  );
  return {
    rows: done.reduce((a, b) => a + b.rows, 0),
    pages: done.reduce((a, b) => a + b.pages, 0),
    ms: performance.now() - started,
  };
}

/** One cursor walk of `GET /transaction` with `filter`, on a connection of its own. */
async function bareCursorWalk(
  upstreamUrl: string,
  apiKey: string,
  filter: Record<string, string>,
): Promise<{ rows: number; pages: number }> {
  const dispatcher = new Agent({ connections: 1 });
  let rows = 0;
  let pages = 0;
  let cursor: string | undefined;
  try {
    do {
      const query = new URLSearchParams({ ...filter, ...(cursor ? { cursor } : {}) });
      const res = await request(`${upstreamUrl}/transaction?${query}`, {
        dispatcher,
        headers: { 'x-api-key': apiKey },
      });
      if (res.statusCode !== 200) throw new Error(`upstream answered ${res.statusCode}`);
      const page = (await res.body.json()) as {
        items: unknown[];
        metadata: { nextCursor?: string };
      };
      rows += page.items.length;
      pages++;
      cursor = page.metadata.nextCursor;
    } while (cursor);
  } finally {
    await dispatcher.close();
  }
  return { rows, pages };
}
