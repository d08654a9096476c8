import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export type RedisScript = (
  client: Redis,
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<unknown>;

/**
 * A Lua script run atomically by Redis: sent by its SHA-1 (EVALSHA), and in full only when the
 * server does not know it yet (first use, or after a restart emptied its script cache).
 */
export function redisScript(lua: string): RedisScript {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (client, keys, args) => {
    try {
      return await client.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(lua, keys.length, ...keys, ...args);
    }
  };
}
