import type { Redis } from 'ioredis';
import { redisCall } from '../redis/redis-errors';
import { redisScript } from '../redis/redis-script';
import {
  type BeforeWrite,
  checkPasskeyUse,
  type FactorStore,
  MAX_PASSKEYS_PER_PERSON,
  oldestFirst,
  type PersonFactors,
  type StoredPasskey,
  storablePasskey,
  storedPasskeySchema,
} from './factor-store';

// Each person is one hash, `<prefix>factors:<email>`: a field `pk:<credential id>` per passkey
// (its JSON) and `totpOff` = '1' while TOTP is off. `<prefix>passkey-ids` maps every enrolled
// credential id to its owner's email, so an id is enrolled once across everyone. Every
// conditional change is one script, so replicas asking at once cannot interleave. No TTL:
// these are durable.

const countPasskeys = `
local function count(key)
  local n = 0
  for _, field in ipairs(redis.call('HKEYS', key)) do
    if string.sub(field, 1, 3) == 'pk:' then n = n + 1 end
  end
  return n
end
`;

// Each change's script takes a last argument '1' for a dry run: the outcome, nothing written.

// KEYS: person, ids. ARGV: id, passkey JSON, email, limit, dry.
const add = redisScript(`${countPasskeys}
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 'duplicate' end
if count(KEYS[1]) >= tonumber(ARGV[4]) then return 'too_many' end
if ARGV[5] == '1' then return 'added' end
redis.call('HSET', KEYS[1], 'pk:' .. ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 'added'
`);

// KEYS: person, ids. ARGV: id, dry.
const remove = redisScript(`${countPasskeys}
if redis.call('HEXISTS', KEYS[1], 'pk:' .. ARGV[1]) == 0 then return 'not_found' end
if redis.call('HEXISTS', KEYS[1], 'totpOff') == 1 and count(KEYS[1]) <= 1 then
  return 'last_factor'
end
if ARGV[2] == '1' then return 'removed' end
redis.call('HDEL', KEYS[1], 'pk:' .. ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 'removed'
`);

// KEYS: person. ARGV: '1' to turn TOTP off, '0' to turn it back on; dry.
const setTotp = redisScript(`${countPasskeys}
if ARGV[1] == '0' then
  if ARGV[2] ~= '1' then redis.call('HDEL', KEYS[1], 'totpOff') end
  return 'ok'
end
if count(KEYS[1]) == 0 then return 'no_passkey' end
if ARGV[2] == '1' then return 'ok' end
redis.call('HSET', KEYS[1], 'totpOff', '1')
return 'ok'
`);

// Edits inside the JSON run in the script too, so a rename and a use at once both stick.
// cjson keeps 14 significant digits: unix ms and a 32-bit counter come back exact.

// KEYS: person. ARGV: id, name. Returns the renamed passkey's JSON, or nil.
const rename = redisScript(`
local field = 'pk:' .. ARGV[1]
local stored = redis.call('HGET', KEYS[1], field)
if not stored then return false end
local passkey = cjson.decode(stored)
passkey.name = ARGV[2]
local json = cjson.encode(passkey)
redis.call('HSET', KEYS[1], field, json)
return json
`);

// KEYS: person. ARGV: id, counter, at. The counter and lastUsedAt only move forward.
const recordUse = redisScript(`
local field = 'pk:' .. ARGV[1]
local stored = redis.call('HGET', KEYS[1], field)
if not stored then return 0 end
local passkey = cjson.decode(stored)
local counter = tonumber(ARGV[2])
local at = tonumber(ARGV[3])
if counter > passkey.counter then passkey.counter = counter end
if passkey.lastUsedAt == nil or at > passkey.lastUsedAt then passkey.lastUsedAt = at end
redis.call('HSET', KEYS[1], field, cjson.encode(passkey))
return 1
`);

/** Second factors shared by every replica. */
export class RedisFactorStore implements FactorStore {
  constructor(
    private readonly client: Redis,
    private readonly prefix = 'cc:',
  ) {}

  async get(email: string): Promise<PersonFactors> {
    const fields = await redisCall('factors read', () => this.client.hgetall(this.person(email)));
    const passkeys: StoredPasskey[] = [];
    for (const [field, value] of Object.entries(fields)) {
      if (!field.startsWith('pk:')) continue;
      const passkey = parsePasskey(value);
      // One unreadable entry costs that passkey, not the person's sign-in.
      if (passkey) passkeys.push(passkey);
    }
    passkeys.sort(oldestFirst);
    return { passkeys, totpDisabled: fields.totpOff === '1' };
  }

  async addPasskey(
    email: string,
    passkey: StoredPasskey,
    audited?: BeforeWrite,
  ): Promise<'added' | 'duplicate' | 'too_many'> {
    const storable = storablePasskey(passkey);
    const outcome = await this.decided(audited, 'added', (dry) =>
      redisCall('passkey add', () =>
        add(
          this.client,
          [this.person(email), this.ids()],
          [storable.id, JSON.stringify(storable), email, MAX_PASSKEYS_PER_PERSON, dry],
        ),
      ),
    );
    return outcome as 'added' | 'duplicate' | 'too_many';
  }

  async renamePasskey(email: string, id: string, name: string): Promise<StoredPasskey | undefined> {
    const json = await redisCall('passkey rename', () =>
      rename(this.client, [this.person(email)], [id, name]),
    );
    return typeof json === 'string' ? parsePasskey(json) : undefined;
  }

  async removePasskey(
    email: string,
    id: string,
    audited?: BeforeWrite,
  ): Promise<'removed' | 'not_found' | 'last_factor'> {
    const outcome = await this.decided(audited, 'removed', (dry) =>
      redisCall('passkey remove', () =>
        remove(this.client, [this.person(email), this.ids()], [id, dry]),
      ),
    );
    return outcome as 'removed' | 'not_found' | 'last_factor';
  }

  async setTotpDisabled(
    email: string,
    disabled: boolean,
    audited?: BeforeWrite,
  ): Promise<'ok' | 'no_passkey'> {
    const outcome = await this.decided(audited, 'ok', (dry) =>
      redisCall('totp switch', () =>
        setTotp(this.client, [this.person(email)], [disabled ? '1' : '0', dry]),
      ),
    );
    return outcome as 'ok' | 'no_passkey';
  }

  /**
   * A change's script run for real, after `audited` when there is one: then a dry run first
   * decides whether there is a change to record (`done` is its outcome when there is).
   */
  private async decided(
    audited: BeforeWrite,
    done: string,
    run: (dry: '0' | '1') => Promise<unknown>,
  ): Promise<unknown> {
    if (audited) {
      const planned = await run('1');
      if (planned !== done) return planned;
      await audited(done);
    }
    return run('0');
  }

  async recordUse(email: string, id: string, counter: number, at: number): Promise<boolean> {
    checkPasskeyUse(counter, at);
    const recorded = await redisCall('passkey use', () =>
      recordUse(this.client, [this.person(email)], [id, counter, at]),
    );
    return recorded === 1;
  }

  private person(email: string): string {
    return `${this.prefix}factors:${email}`;
  }

  private ids(): string {
    return `${this.prefix}passkey-ids`;
  }
}

function parsePasskey(json: string): StoredPasskey | undefined {
  try {
    const parsed = storedPasskeySchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
