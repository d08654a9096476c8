import { roleSchema } from '@card-console/shared/api/meta';
import { signInMethodSchema } from '@card-console/shared/api/session';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { redisCall } from '../redis/redis-errors';
import type { SessionRecord, SessionStore } from './session-store';

const recordSchema = z.object({
  email: z.string(),
  role: roleSchema,
  createdAt: z.number(),
  lastSeenAt: z.number(),
  stepUpAt: z.number().optional(),
  method: signInMethodSchema.optional(),
  sso: z
    .object({ sub: z.string(), idToken: z.string(), linked: z.boolean().optional() })
    .optional(),
  personVersion: z.number().int().optional(),
  ref: z.string().optional(),
});

/**
 * Sessions shared by every replica: one string per session, `SET … PX ttl`, so the idle and
 * absolute expiry the session service works out become the key's TTL and Redis drops ended
 * sessions by itself. The key is already a keyed hash of the cookie id (session-service.ts).
 */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
  ) {}

  private keyOf(key: string): string {
    return `${this.prefix}session:${key}`;
  }

  async get(key: string): Promise<SessionRecord | undefined> {
    const text = await redisCall('session read', () => this.client.get(this.keyOf(key)));
    if (text === null) return undefined;
    // Something this version cannot read is no session, never a crash.
    const parsed = recordSchema.safeParse(safeJson(text));
    return parsed.success ? parsed.data : undefined;
  }

  async set(key: string, record: SessionRecord, ttlMs: number): Promise<void> {
    const ttl = Math.max(1, Math.ceil(ttlMs));
    await redisCall('session write', () =>
      this.client.set(this.keyOf(key), JSON.stringify(record), 'PX', ttl),
    );
  }

  async refresh(key: string, record: SessionRecord, ttlMs: number): Promise<void> {
    const ttl = Math.max(1, Math.ceil(ttlMs));
    await redisCall('session refresh', () =>
      this.client.set(this.keyOf(key), JSON.stringify(record), 'PX', ttl, 'XX'),
    );
  }

  async delete(key: string): Promise<void> {
    await redisCall('session delete', () => this.client.del(this.keyOf(key)));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
