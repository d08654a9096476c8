import type { Redis } from 'ioredis';
import { redisCall } from '../redis/redis-errors';
import { redisScript } from '../redis/redis-script';
import type { UsedCodeLedger } from './totp';

/** Compare-and-set in one step: the stored time step only moves forward. */
const claimStep = redisScript(`
local last = redis.call('GET', KEYS[1])
if last and tonumber(last) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1
`);

/**
 * Long enough: a code is accepted only within one 30 s step of now, so a step claimed more
 * than a minute ago can never be offered again; five minutes leaves room for clock skew
 * between replicas.
 */
const REMEMBER_SECONDS = 300;

/** Which TOTP step each person last used, shared by every replica: `<prefix>totp-used:<email>`. */
export class RedisUsedCodeLedger implements UsedCodeLedger {
  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
  ) {}

  async claim(email: string, timeStep: number): Promise<boolean> {
    const claimed = await redisCall('used code claim', () =>
      claimStep(
        this.client,
        [`${this.prefix}totp-used:${email}`],
        [Math.floor(timeStep), REMEMBER_SECONDS],
      ),
    );
    return claimed === 1;
  }
}
