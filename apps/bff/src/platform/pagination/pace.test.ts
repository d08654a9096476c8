// The pace the walks of one card service share: more pages at once while it answers quickly,
// half as many and none at all until the wait it asked for once it says it is busy (a 429),
// never past a ceiling or a published rate, people's walks before the background sync.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createServicePace, type PageTurn, type ServicePace, type WalkPace } from './pace';

const options = { ceiling: 6, start: 2, slowMs: 100, busyGapMs: 60 };

/** Asks for `n` turns at once; `granted` lists them as they come. */
function ask(pace: WalkPace, n: number, signal?: AbortSignal) {
  const granted: PageTurn[] = [];
  const all = Array.from({ length: n }, () =>
    pace.turn(signal).then((turn) => {
      granted.push(turn);
      return turn;
    }),
  );
  return { granted, all };
}

const tick = () => sleep(5);

/**
 * Six turns of a background walk asked at once, those granted at once answered at once: how
 * many were granted at once, and the ms until all six were (what a published rate's bucket
 * lets through at once, then at its refill).
 */
async function sixTurns(service: ServicePace) {
  const started = performance.now();
  const { granted, all } = ask(service.walk('background'), 6);
  await tick();
  const atOnce = granted.length;
  for (const turn of granted) turn.answered(1);
  await Promise.all(all);
  return { atOnce, ms: performance.now() - started };
}

describe('createServicePace', () => {
  it('never lets more pages run at once than its limit; each answer lets the next one go', async () => {
    const pace = createServicePace(options).walk('background');
    const { granted } = ask(pace, 5);
    await tick();
    expect(granted).toHaveLength(2);
    granted[0]?.failed();
    await tick();
    expect(granted).toHaveLength(3);
  });

  it('grows by one page at once for each quick answer while in use, up to its ceiling', async () => {
    const service = createServicePace(options);
    const pace = service.walk('background');
    for (let round = 0; round < 4; round++) {
      const limit = pace.limit();
      const { all } = ask(pace, limit);
      for (const turn of await Promise.all(all)) turn.answered(5);
    }
    // 2 → 4 → 6 (the ceiling) and no further.
    expect(service.state().limit).toBe(6);
  });

  it('does not grow while the limit is not in use', async () => {
    const service = createServicePace({ ...options, start: 4 });
    const pace = service.walk('background');
    for (let i = 0; i < 10; i++) (await pace.turn()).answered(5);
    expect(service.state().limit).toBe(4);
  });

  it('a 429 halves the limit and holds every turn until the wait it asked for has passed', async () => {
    const service = createServicePace({ ...options, start: 6 });
    const pace = service.walk('background');
    service.busy(150);
    expect(service.state().limit).toBe(3);
    const started = performance.now();
    const { granted, all } = ask(pace, 2);
    await sleep(60);
    expect(granted).toHaveLength(0);
    await Promise.all(all);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('many 429s at once (the pages in flight all meet the limit) halve it once per hold', async () => {
    const service = createServicePace({ ...options, start: 6 });
    for (let i = 0; i < 6; i++) service.busy(100);
    expect(service.state()).toMatchObject({ limit: 3, busy: 6, backoffs: 1 });
    await sleep(120);
    service.busy(100);
    expect(service.state()).toMatchObject({ limit: 1, backoffs: 2 });
  });

  it('a 429 that names no wait holds for its own gap', async () => {
    const service = createServicePace(options);
    service.busy();
    const hold = service.state().holdUntil - Date.now();
    expect(hold).toBeGreaterThan(40);
    expect(hold).toBeLessThanOrEqual(60);
  });

  it('a slow answer or an overloaded page halves the limit without holding the turns', async () => {
    const service = createServicePace({ ...options, start: 6 });
    const pace = service.walk('background');
    (await pace.turn()).answered(500);
    expect(service.state()).toMatchObject({ limit: 3, holdUntil: 0 });
    await sleep(110);
    (await pace.turn()).failed({});
    expect(service.state()).toMatchObject({ limit: 1, holdUntil: 0 });
    // A page that failed for its own reasons (a 404, a bad answer) says nothing of the pace.
    (await pace.turn()).failed();
    expect(service.state().limit).toBe(1);
  });

  it('keeps to four fifths of a published rate and two fifths of its burst: those at once, then the refill', async () => {
    // Published: 10 at once, 25 a second. The walks': 4 at once, 20 a second.
    const service = createServicePace({ ...options, start: 6, rate: { perSecond: 25, burst: 10 } });
    const { atOnce, ms } = await sixTurns(service);
    expect(atOnce).toBe(4);
    // Two more tokens at 20 a second: 100 ms.
    expect(ms).toBeGreaterThanOrEqual(90);
  });

  it('divides its share of a published rate among the replicas alive: with two, half the burst at once and half the refill', async () => {
    // Published: 20 at once, 25 a second. The walks' alone: 8 at once, 20 a second; each of two
    // replicas': 4 at once, 10 a second.
    const service = createServicePace({ ...options, start: 6, rate: { perSecond: 25, burst: 20 } });
    service.share(2);
    expect(service.state().replicas).toBe(2);
    const { atOnce, ms } = await sixTurns(service);
    expect(atOnce).toBe(4);
    // Two more tokens at 10 a second: 200 ms (at 20 a second, alone, it would be 100).
    expect(ms).toBeGreaterThanOrEqual(180);
    // Alone again: the whole share.
    service.share(1);
    expect(service.state().replicas).toBe(1);
  });

  it('serves the turns of walks someone waits for before the background sync’s', async () => {
    const service = createServicePace({ ...options, start: 1 });
    const background = service.walk('background');
    const asked = service.walk('asked');
    const order: string[] = [];
    const first = await background.turn();
    const heard = (kind: string) => (turn: PageTurn) => {
      order.push(kind);
      return turn;
    };
    const waiting = [
      background.turn().then(heard('background')),
      asked.turn().then(heard('asked')),
    ];
    first.answered(500); // slow: the limit stays 1
    (await waiting[1])?.answered(500);
    await Promise.all(waiting);
    expect(order).toEqual(['asked', 'background']);
  });

  it('keeps the ranges open at once to its limit, across walks', async () => {
    const service = createServicePace({ ...options, start: 2 });
    const releases: (() => void)[] = [];
    const opened = [
      service.walk('background'),
      service.walk('asked'),
      service.walk('background'),
    ].map((pace) => pace.range().then((release) => releases.push(release)));
    await tick();
    expect(releases).toHaveLength(2);
    expect(service.state().rangesOpen).toBe(2);
    releases[0]?.();
    releases[0]?.(); // a second release of the same slot frees nothing more
    await Promise.all(opened);
    expect(service.state().rangesOpen).toBe(2);
  });

  it('gives a free range slot to the waiting walk with the fewest ranges open, not to the first in line', async () => {
    const service = createServicePace({ ...options, start: 4 });
    const [first, second] = [service.walk('background'), service.walk('background')];
    const opened: string[] = [];
    const releases = new Map<string, (() => void)[]>([
      ['first', []],
      ['second', []],
    ]);
    const open = (pace: WalkPace, name: string) =>
      pace.range().then((release) => {
        opened.push(name);
        releases.get(name)?.push(release);
      });
    // The first walk's six walkers line up before the second walk's two.
    const all = [
      ...Array.from({ length: 6 }, () => open(first, 'first')),
      ...Array.from({ length: 2 }, () => open(second, 'second')),
    ];
    await tick();
    expect(opened).toEqual(['first', 'first', 'first', 'first']);
    // The first walk ends a range: the slot goes to the second, which holds none.
    releases.get('first')?.[0]?.();
    await tick();
    expect(opened.slice(4)).toEqual(['second']);
    // Again: the second holds one, the first three; the second's walker is served.
    releases.get('first')?.[1]?.();
    await tick();
    expect(opened.slice(5)).toEqual(['second']);
    // The second has no walker left waiting: the first walk's is served.
    releases.get('second')?.[0]?.();
    await tick();
    expect(opened.slice(6)).toEqual(['first']);
    for (const release of [...(releases.get('first') ?? []), ...(releases.get('second') ?? [])])
      release();
    await Promise.all(all);
    expect(opened).toHaveLength(8);
  });

  it('a walk that stops while waiting leaves the line, and a turn granted as it stopped is given back', async () => {
    const service = createServicePace({ ...options, start: 1 });
    const pace = service.walk('background');
    const held = await pace.turn();
    const stop = new AbortController();
    const { all } = ask(pace, 3, stop.signal);
    await tick();
    expect(service.state().waiting).toBe(3);
    stop.abort(new Error('the walk stopped'));
    await expect(Promise.all(all)).rejects.toThrow('the walk stopped');
    expect(service.state().waiting).toBe(0);
    held.answered(500);
    expect(service.state().inFlight).toBe(0);
    // Nothing leaked: the next turn is granted at once.
    (await pace.turn()).answered(500);
    expect(service.state().inFlight).toBe(0);
  });
});
