import { randomBytes } from 'node:crypto';
import { createCardService, startLiveActivity } from '@card-console/card-service-sim';

/** The demo's company zone: the living demo's working hours are New York's. */
const DEMO_ZONE = 'America/New_York';
/** The simulator's seed (its default): the living demo draws from it too. */
const DEMO_SEED = 42;
/**
 * The rate limit the demo's card service keeps (the simulator's default), published to the
 * BFF as an operator publishes a real service's (CARD_API_RATE_PER_SECOND and _BURST): the
 * walks keep to a share of it and leave the rest to people's own calls.
 */
const DEMO_RATE_LIMIT = { perSecond: 100, burst: 200 };

/**
 * Demo mode's upstream: the simulator in this process on a loopback port, with default seeded
 * data and a random key that exists only in memory, reached over real HTTP like the real one,
 * and its published rate limit.
 * With `live` (perMinute above 0), card transactions keep arriving (`startLiveActivity`).
 */
export async function startDemoUpstream(
  options: {
    transactions?: number;
    live?: { perMinute: number; hours: { from: number; to: number } };
  } = {},
) {
  const apiKey = randomBytes(24).toString('base64url');
  const sim = createCardService({
    apiKey,
    seed: DEMO_SEED,
    rateLimit: { capacity: DEMO_RATE_LIMIT.burst, refillPerSecond: DEMO_RATE_LIMIT.perSecond },
    ...(options.transactions === undefined ? {} : { transactions: options.transactions }),
  });
  const { url } = await sim.listen(0, '127.0.0.1');
  const live = options.live
    ? startLiveActivity(sim, {
        seed: DEMO_SEED,
        perMinute: options.live.perMinute,
        hours: options.live.hours,
        timeZone: DEMO_ZONE,
        now: Date.now,
      })
    : undefined;
  return {
    baseUrl: url,
    apiKey,
    rateLimit: DEMO_RATE_LIMIT,
    /** The demo's cards as generated (their ids and names: what the demo's owners seed reads). */
    cards: () => sim.data.cards().map((card) => ({ id: card.id, name: card.name })),
    close: () => {
      live?.stop();
      return sim.close();
    },
  };
}
