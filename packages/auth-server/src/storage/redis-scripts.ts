/**
 * Every Lua script this service runs on Redis, and the one place that defines them on a connection.
 *
 * Writes and the reads that must see a consistent picture are scripts rather than MULTI/EXEC: ioredis
 * auto-pipelines scripts with the other commands of the same tick, while each MULTI/EXEC costs a
 * socket write of its own (about 5 % of the CPU of a refresh in scripts/bench). The key layout they
 * work on is redis-keys.ts, and every script keeps its slot rule: all keys a script touches share
 * one hash slot (one grant's keys, or one client's index), so each runs unchanged on a Redis Cluster.
 * A key a script computes itself (the grant named inside a token) is built in that same slot, by
 * the same rule as redis-keys.ts `grantScopedKey` ({@link LUA_GRANT_KEY}). One script breaks the
 * rule on purpose and is never sent to a cluster: COUNT_AND_FIND, the introspection route's count and
 * token read in one, for one node (or Sentinel's primary), where slots do not matter
 * (introspection-count.ts sends the two halves as two scripts to a cluster).
 *
 * Every script has a fixed number of keys, so its first argument is a key: on a cluster, ioredis's
 * auto-pipelining groups a command with the others of the same tick by the node of its first
 * argument, and a script called with a key count first (`2, key, key`) was grouped by the slot of
 * "2", then refused with whatever else shared that pipeline ("All keys in the pipeline should belong
 * to the same slots allocation group") whenever two such calls for grants on different nodes met in
 * one tick. A script that may not need its second key is given its first one again.
 */
import type { RedisClient } from '@school/shared';
import { GRANT_TAG_LENGTH } from './redis-keys.js';
import type { FoundWithGrant } from './request-reads.js';

/** Lua: the key of grant `gid` under the prefix `p` (`<prefix>Grant:`), as redis-keys.ts builds it. */
const LUA_GRANT_KEY = (p: string, gid: string) =>
  `${p} .. '{' .. string.sub(${gid}, 1, ${GRANT_TAG_LENGTH}) .. '}' .. string.sub(${gid}, ${GRANT_TAG_LENGTH + 1})`;

// KEYS[1] = the model key; KEYS[2] = its grant's token list if ARGV[5] == '1' (same slot), else
// KEYS[1] again.
// ARGV[1] = payload JSON; ARGV[2] = TTL seconds ('0': none); ARGV[3] = '1' for a consumable model
// (a hash {p, c}); ARGV[4] = consumed-at ('' when not consumed).
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
if ARGV[5] == '1' then
  redis.call('RPUSH', KEYS[2], KEYS[1])
  redis.call('EXPIRE', KEYS[2], ttl, 'NX')
  redis.call('EXPIRE', KEYS[2], ttl, 'GT')
end
return 1`;

// KEYS[1] = a grant index (a client's or an account's grant set). ARGV[1] = the grant id, ARGV[2] = its
// TTL ('0': none). The set expires with the longest-lived grant in it.
const INDEX_GRANT = `
local ttl = tonumber(ARGV[2])
redis.call('SADD', KEYS[1], ARGV[1])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl, 'NX')
  redis.call('EXPIRE', KEYS[1], ttl, 'GT')
else
  redis.call('PERSIST', KEYS[1])
end
return 1`;

// KEYS[1] = the consumable key; ARGV[1] = now (seconds).
// Returns -1 when the key is gone, 1 when this call consumed it, 0 when it was consumed already.
const CONSUME = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('HSETNX', KEYS[1], 'c', ARGV[1])`;

// KEYS[1] = a refresh token's claim key, KEYS[2] = its answer list (same slot); ARGV[1] = the claim's
// life, seconds. Claims the token when nobody holds it, emptying its answer list with it (an earlier
// holder's answer is not this one's): 1 when claimed, 0 when another request holds it.
const CLAIM_REFRESH = `
if not redis.call('SET', KEYS[1], '1', 'EX', ARGV[1], 'NX') then return 0 end
redis.call('DEL', KEYS[2])
return 1`;

// KEYS[1] = a grant's token list, KEYS[2] = the Grant itself (same slot), or the list again to keep
// the Grant. Deletes every key the list names, the list and KEYS[2]; returns the deleted token keys.
const REVOKE_GRANT = `
local keys = redis.call('LRANGE', KEYS[1], 0, -1)
for i = 1, #keys, 500 do
  redis.call('DEL', unpack(keys, i, math.min(i + 499, #keys)))
end
redis.call('DEL', KEYS[1], KEYS[2])
return keys`;

/**
 * With `p` a token's payload JSON: sets `gid` to its grant id (or nil) and `g` to that grant's JSON
 * (or false), read under `grantPrefix` (a Lua expression), in the token's own slot. The id is taken by
 * pattern, cheaper than cjson.decode (JSON escapes a quote inside a string, so `"grantId":"` only
 * matches a member name; none of the models' nested objects has one); a wrong match could only fetch
 * some other grant under its own id, which the caller then never asks for.
 */
const grantOfPayload = (grantPrefix: string) => `
local gid = string.match(p, '"grantId":"([^"\\\\]+)"')
local g = false
if gid then g = redis.call('GET', ${LUA_GRANT_KEY(grantPrefix, 'gid')}) end`;

// KEYS[1] = a grant-bound model's key; ARGV[1] = '1' for a consumable model (a hash {p, c});
// ARGV[2] = the grant key prefix (`<prefix>Grant:`). Returns false when the key is gone, else
// {payload, consumedAt or false, grantId or false, grant JSON or false}. Whether the token's client
// still exists is checked by the caller (the client's key is in another slot).
const FIND_WITH_GRANT = `
local p, c
if ARGV[1] == '1' then
  local h = redis.call('HMGET', KEYS[1], 'p', 'c')
  p, c = h[1], h[2]
else
  p = redis.call('GET', KEYS[1])
end
if not p then return false end
${grantOfPayload('ARGV[2]')}
return {p, c or false, gid or false, g}`;

// The introspection limit's fixed window, for introspection-count.ts: opened with SET NX EX, then
// INCR, PTTL. KEYS[1] = the counter (redis-keys.ts `introspectionCountKey`); ARGV[1] = the window,
// seconds. Sets `count` and `ttl` (ms left in the window).
const COUNT_LINES = `
redis.call('SET', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  ttl = 1000 * ARGV[1]
end`;

// The count alone (KEYS and ARGV as COUNT_LINES). Returns {count, ttl}.
const COUNT = `${COUNT_LINES}
return {count, ttl}`;

// One node only, for introspection-count.ts: the count and an access token's read (FIND_WITH_GRANT's,
// for a model that is not consumable) in one script, since the counter and the token are in
// different hash slots, which a cluster refuses in one script. KEYS[1] = the counter, KEYS[2] = the
// access token's key; ARGV[1] = the window, seconds; ARGV[2] = the grant key prefix. Returns
// {count, ttl} when the token is gone, else {count, ttl, payload, grantId or false, grant JSON or false}.
const COUNT_AND_FIND = `${COUNT_LINES}
local p = redis.call('GET', KEYS[2])
if not p then return {count, ttl} end
${grantOfPayload('ARGV[2]')}
return {count, ttl, p, gid or false, g}`;

// KEYS[1] = a client's grant set. Deletes it when it is empty; returns 1 when it was (or is gone).
const DROP_EMPTY_INDEX = `
if redis.call('SCARD', KEYS[1]) > 0 then return 0 end
redis.call('DEL', KEYS[1])
return 1`;

/**
 * `oidcCountAndFind`'s reply: the count and the ms left in its window, then, when the token exists,
 * its payload, its grant id and the grant's JSON (null when either is missing).
 */
export type CountAndFindReply = [number, number, string?, (string | null)?, (string | null)?];

/** The scripts as commands of an ioredis connection (arguments as in the comments above). */
export interface StorageScripts {
  oidcUpsert(
    key: string,
    grantListOrKey: string,
    payload: string,
    ttl: string,
    consumable: '0' | '1',
    consumedAt: string,
    listed: '0' | '1',
  ): Promise<number>;
  oidcIndexGrant(index: string, grantId: string, ttl: string): Promise<number>;
  oidcConsume(key: string, now: number): Promise<number>;
  oidcClaimRefresh(claimKey: string, answersKey: string, seconds: number): Promise<number>;
  oidcRevokeGrant(grantList: string, grantOrList: string): Promise<string[]>;
  oidcFindWithGrant(key: string, consumable: '0' | '1', grantPrefix: string): Promise<FoundWithGrant | null>;
  oidcCount(counterKey: string, seconds: number): Promise<[number, number]>;
  oidcCountAndFind(
    counterKey: string,
    tokenKey: string,
    seconds: number,
    grantPrefix: string,
  ): Promise<CountAndFindReply>;
  oidcDropEmptyIndex(clientGrants: string): Promise<number>;
}

/** A connection (one node or a cluster) with {@link StorageScripts} defined. */
export type ScriptedRedis = RedisClient & StorageScripts;

/** `redis` with every script defined on it (once per connection; later calls only cast). */
export function withScripts(redis: RedisClient): ScriptedRedis {
  const r = redis as ScriptedRedis;
  if (typeof r.oidcUpsert !== 'function') {
    redis.defineCommand('oidcUpsert', { numberOfKeys: 2, lua: UPSERT });
    redis.defineCommand('oidcIndexGrant', { numberOfKeys: 1, lua: INDEX_GRANT });
    redis.defineCommand('oidcConsume', { numberOfKeys: 1, lua: CONSUME });
    redis.defineCommand('oidcClaimRefresh', { numberOfKeys: 2, lua: CLAIM_REFRESH });
    redis.defineCommand('oidcRevokeGrant', { numberOfKeys: 2, lua: REVOKE_GRANT });
    redis.defineCommand('oidcFindWithGrant', { numberOfKeys: 1, lua: FIND_WITH_GRANT });
    redis.defineCommand('oidcCount', { numberOfKeys: 1, lua: COUNT });
    redis.defineCommand('oidcCountAndFind', { numberOfKeys: 2, lua: COUNT_AND_FIND });
    redis.defineCommand('oidcDropEmptyIndex', { numberOfKeys: 1, lua: DROP_EMPTY_INDEX });
  }
  return r;
}
