/**
 * Every Lua script this service runs on Redis, and the one place that defines them on a connection.
 *
 * Writes and the reads that must see a consistent picture are scripts rather than MULTI/EXEC: ioredis
 * auto-pipelines scripts with the other commands of the same tick, while each MULTI/EXEC costs a
 * socket write of its own (about 5 % of the CPU of a refresh in scripts/bench). The key layout they
 * work on is redis-keys.ts. Keys computed inside a script (a grant or client named by a payload) are
 * not in KEYS: fine on a single Redis (no cluster slots to respect).
 */
import type { Redis } from 'ioredis';
import type { FoundWithGrant } from './request-reads.js';

// KEYS[1] = the model key; then the grant list if ARGV[6] == '1'; then the session-uid key if
// ARGV[7] == '1'; then the client's grant set if ARGV[8] == '1' (a Grant). ARGV[1] = payload JSON;
// ARGV[2] = TTL seconds ('0': none); ARGV[3] = '1' for a consumable model (a hash {p, c});
// ARGV[4] = consumed-at ('' when not consumed); ARGV[5] = the id.
const UPSERT = `
local ttl = tonumber(ARGV[2])
if ARGV[3] == '1' then
  redis.call('DEL', KEYS[1])
  if ARGV[4] ~= '' then
    redis.call('HSET', KEYS[1], 'p', ARGV[1], 'c', ARGV[4])
  else
    redis.call('HSET', KEYS[1], 'p', ARGV[1])
  end
  if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
elseif ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
else
  redis.call('SET', KEYS[1], ARGV[1])
end
local n = 2
if ARGV[6] == '1' then
  redis.call('RPUSH', KEYS[2], KEYS[1])
  redis.call('EXPIRE', KEYS[2], ttl, 'NX')
  redis.call('EXPIRE', KEYS[2], ttl, 'GT')
  n = 3
end
if ARGV[7] == '1' then
  redis.call('SET', KEYS[n], ARGV[5], 'EX', ttl)
  n = n + 1
end
if ARGV[8] == '1' then
  redis.call('SADD', KEYS[n], ARGV[5])
  if ttl > 0 then
    redis.call('EXPIRE', KEYS[n], ttl, 'NX')
    redis.call('EXPIRE', KEYS[n], ttl, 'GT')
  else
    redis.call('PERSIST', KEYS[n])
  end
end
return 1`;

// KEYS[1] = the consumable key; ARGV[1] = now (seconds).
// Returns -1 when the key is gone, 1 when this call consumed it, 0 when it was consumed already.
const CONSUME = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('HSETNX', KEYS[1], 'c', ARGV[1])`;

// KEYS[1] = the grant list. Deletes every key it names and the list; returns the deleted keys.
const REVOKE_GRANT = `
local keys = redis.call('LRANGE', KEYS[1], 0, -1)
for i = 1, #keys, 500 do
  redis.call('DEL', unpack(keys, i, math.min(i + 499, #keys)))
end
redis.call('DEL', KEYS[1])
return keys`;

/**
 * With `p` a grant-bound token's payload JSON: sets `p` to false when the client it names is no longer
 * stored under `clientPrefix` (a Lua expression), so a token of a vanished client reads as no token at
 * all. The id is taken by pattern, cheaper than cjson.decode (JSON escapes a quote inside a string, so
 * `"clientId":"` only matches a member name; none of the models' nested objects has one); a payload
 * without a plain client id is left as it is.
 */
const dropIfClientGone = (clientPrefix: string) => `
local cid = string.match(p, '"clientId":"([^"\\\\]+)"')
if cid and redis.call('EXISTS', ${clientPrefix} .. cid) == 0 then p = false end`;

/**
 * With `p` a token's payload JSON: sets `gid` to its grant id (or nil) and `g` to that grant's JSON
 * (or false), read under `grantPrefix` (a Lua expression). Taken by pattern as above; a wrong match
 * could only fetch some other grant under its own id, which the caller then never asks for.
 */
const grantOfPayload = (grantPrefix: string) => `
local gid = string.match(p, '"grantId":"([^"\\\\]+)"')
local g = false
if gid then g = redis.call('GET', ${grantPrefix} .. gid) end`;

// KEYS[1] = a grant-bound model's key; ARGV[1] = '1' for a consumable model (a hash {p, c});
// ARGV[2] = the grant key prefix (`<prefix>Grant:`); ARGV[3] = the client key prefix. Returns false
// when the key or its client is gone, else {payload, consumedAt or false, grantId or false, grant
// JSON or false}.
const FIND_WITH_GRANT = `
local p, c
if ARGV[1] == '1' then
  local h = redis.call('HMGET', KEYS[1], 'p', 'c')
  p, c = h[1], h[2]
else
  p = redis.call('GET', KEYS[1])
end
if not p then return false end
${dropIfClientGone('ARGV[3]')}
if not p then return false end
${grantOfPayload('ARGV[2]')}
return {p, c or false, gid or false, g}`;

// Counts exactly as rate-limiter-flexible's RateLimiterRedis does (a fixed window opened with
// SET NX EX, INCR, PTTL), then reads an access token as FIND_WITH_GRANT does (introspection-count.ts).
// KEYS[1] = the rate-limit counter, KEYS[2] = the access token's key. ARGV[1] = the window, seconds;
// ARGV[2] = the grant key prefix; ARGV[3] = '0' to count only; ARGV[4] = the client key prefix.
// Returns {count, ms left in the window, and false or the token as FIND_WITH_GRANT returns it}.
const COUNT_AND_READ = `
redis.call('SET', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  ttl = 1000 * ARGV[1]
end
if ARGV[3] == '0' then return {count, ttl, false} end
local p = redis.call('GET', KEYS[2])
if not p then return {count, ttl, false} end
${dropIfClientGone('ARGV[4]')}
if not p then return {count, ttl, false} end
${grantOfPayload('ARGV[2]')}
return {count, ttl, {p, false, gid or false, g}}`;

// One step of removing a client (client-removal.ts).
// KEYS[1] = the client's grant set, KEYS[2] = the client, KEYS[3] = the last-use hash.
// ARGV[1] = batch size, ARGV[2] = `<prefix>Grant:`, ARGV[3] = `<prefix>grant:` (token lists),
// ARGV[4] = the client id. Returns {1 when the client is removed else 0, grants ended, token keys}.
const END_CLIENT = `
local ended = {}
local ids = redis.call('SPOP', KEYS[1], ARGV[1])
for _, gid in ipairs(ids) do
  local list = ARGV[3] .. gid
  local keys = redis.call('LRANGE', list, 0, -1)
  for i = 1, #keys, 500 do
    redis.call('DEL', unpack(keys, i, math.min(i + 499, #keys)))
  end
  for _, k in ipairs(keys) do ended[#ended + 1] = k end
  redis.call('DEL', list, ARGV[2] .. gid)
end
if redis.call('SCARD', KEYS[1]) > 0 then return {0, #ids, ended} end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HDEL', KEYS[3], ARGV[4])
return {1, #ids, ended}`;

/** The scripts as commands of an ioredis connection (arguments as in the comments above). */
export interface StorageScripts {
  oidcUpsert(numberOfKeys: number, ...keysAndArgs: string[]): Promise<number>;
  oidcConsume(key: string, now: number): Promise<number>;
  oidcRevokeGrant(grantList: string): Promise<string[]>;
  oidcFindWithGrant(
    key: string,
    consumable: '0' | '1',
    grantPrefix: string,
    clientPrefix: string,
  ): Promise<FoundWithGrant | null>;
  oidcCountAndRead(
    counterKey: string,
    tokenKey: string,
    seconds: number,
    grantPrefix: string,
    read: '0' | '1',
    clientPrefix: string,
  ): Promise<[number, number, FoundWithGrant | null]>;
  oidcEndClient(
    grants: string,
    client: string,
    usage: string,
    batch: number,
    grantPrefix: string,
    listPrefix: string,
    clientId: string,
  ): Promise<[number, number, string[]]>;
}

/** A connection with {@link StorageScripts} defined. */
export type ScriptedRedis = Redis & StorageScripts;

/** `redis` with every script defined on it (once per connection; later calls only cast). */
export function withScripts(redis: Redis): ScriptedRedis {
  const r = redis as ScriptedRedis;
  if (typeof r.oidcUpsert !== 'function') {
    redis.defineCommand('oidcUpsert', { lua: UPSERT });
    redis.defineCommand('oidcConsume', { numberOfKeys: 1, lua: CONSUME });
    redis.defineCommand('oidcRevokeGrant', { numberOfKeys: 1, lua: REVOKE_GRANT });
    redis.defineCommand('oidcFindWithGrant', { numberOfKeys: 1, lua: FIND_WITH_GRANT });
    redis.defineCommand('oidcCountAndRead', { numberOfKeys: 2, lua: COUNT_AND_READ });
    redis.defineCommand('oidcEndClient', { numberOfKeys: 3, lua: END_CLIENT });
  }
  return r;
}
