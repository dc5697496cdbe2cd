/**
 * oidc-provider's storage in Redis, through ioredis.
 *
 * Layout (every key under the configured prefix, e.g. `oidc:`):
 *   `<Model>:<id>`       a JSON string (SET … EX), or for consumable models (codes, refresh tokens) a
 *                        hash `{p: payload, c: consumedAt}` so consumption is one atomic HSETNX that
 *                        keeps the TTL and survives restarts;
 *   `grant:<grantId>`    a list of the keys of every token issued under that grant, expiring with the
 *                        longest of them (EXPIRE NX then EXPIRE GT, in the same atomic script: no TTL read
 *                        before writing);
 *   `sessionUid:<uid>`   the id of the Session with that uid, with the Session's TTL;
 *   `clientGrants:<clientId>`  the ids of every Grant of that client, expiring with the longest of
 *                        them (as the grant list): what deleting a client ends first (client-removal.ts).
 *
 * A token whose client is gone does not exist. Every read of a grant-bound model (access and refresh
 * tokens, codes) checks, in the same script, that the client it names is still stored, and finds
 * nothing when it is not: introspection says `active: false`, userinfo 401 `invalid_token`, the token
 * endpoint `invalid_grant`, revocation 200, whichever way the client went (deleted by an operator, the
 * sweep, or straight from Redis), instead of oidc-provider failing on the missing client (a 500 on
 * `client.subjectType` in introspection, issue 13 finding 13). Every client that can hold tokens is
 * stored in Redis; the only configured (static) client, the resource API's introspector, has no grants.
 * Reads and issues of access and refresh tokens are also reported to `recordUse` (client-usage.ts), which
 * the client lifecycle sweep reads.
 *
 * Why not the upstream example adapter: it reads the grant list's TTL before every write (a second
 * round trip), keeps consumed state in a way a racing second request can also pass, and lets the grant
 * list outlive nothing. Here a lost consumption race (two requests redeeming one code or one rotated
 * refresh token at once) is detected by HSETNX: the loser revokes the whole grant and gets
 * `invalid_grant`, as RFC 6749 §4.1.2 and RFC 9700 §4.14 ask.
 *
 * A token and its grant are read in one round trip. oidc-provider reads a token, then its grant (the
 * introspection, userinfo, code and refresh paths all do); `oidcFindWithGrant` returns both from one
 * script and the grant is kept for the rest of that same request only (request-reads.ts), where the
 * following `Grant.find` takes it: the grant as it was when the token was read, microseconds before
 * a second GET would have seen it. A grant this request writes or deletes in between is dropped from
 * the keep first. introspection-count.ts goes one step further on the introspection route.
 *
 * Every revocation is also published on `<prefix>revocations` as the SHA-256 hashes of the revoked
 * access tokens, so resource servers that cache introspection results can evict them at once.
 *
 * Stored clients (dynamically registered and operator-created) are cached in process for a few
 * seconds: oidc-provider reads the client from storage on every request that names one (a Redis
 * round trip, a JSON parse and a SHA-256 of the metadata each time), while clients change only when
 * registered or deleted. Writes and deletes through this process evict the entry at once; a client
 * deleted through another process (the `school-auth` command, another instance) keeps working here
 * for at most `clientCacheMs` (5 s). Unknown client ids are never cached.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import Provider, { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import { dropGrant, keepGrant, takeGrant, takeStartedRead, type FoundWithGrant } from './request-reads.js';

/** Models that carry a `grantId` and are revoked with their grant. */
const GRANT_BOUND = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);
/** Models whose issue or read counts as a use of their client. */
const MARKS_USE = new Set(['AccessToken', 'RefreshToken']);
/** Models whose `consumed` state must be atomic and durable. */
const CONSUMABLE = new Set([
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

/** Options for {@link createRedisAdapter}. */
export interface RedisAdapterOptions {
  /** Key prefix, e.g. `oidc:`. */
  prefix: string;
  /** Seconds added to every TTL: oidc-provider still accepts a token that long past `exp`. */
  clockToleranceSeconds?: number;
  /** How long a stored client's metadata is reused in process, ms; 0 turns the cache off. Default 5000. */
  clientCacheMs?: number;
  /** At most this many clients are cached (the oldest entry goes first). Default 1000. */
  clientCacheSize?: number;
  /** Told the client id whenever an access or refresh token is issued or read (client-usage.ts). */
  recordUse?: (clientId: string) => void;
}

/** The channel revocations are published on, for a given prefix. */
export function revocationChannel(prefix: string): string {
  return `${prefix}revocations`;
}

/** SHA-256 hex of a token value: the only form in which tokens leave this service for caches and logs. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The key of the set of a client's grant ids. */
export function clientGrantsKey(prefix: string, clientId: string): string {
  return `${prefix}clientGrants:${clientId}`;
}

/**
 * Publishes the revoked access tokens among `keys` (storage keys of any models) on the revocation
 * channel, as SHA-256 hashes, so resource servers drop their cached introspection answers at once.
 */
export async function publishRevoked(redis: Redis, prefix: string, keys: string[]): Promise<void> {
  const marker = `${prefix}AccessToken:`;
  const hashes = keys.filter((k) => k.startsWith(marker)).map((k) => tokenHash(k.slice(marker.length)));
  if (hashes.length) await redis.publish(revocationChannel(prefix), JSON.stringify({ tokens: hashes }));
}

// One write, atomically, as a script rather than MULTI/EXEC: ioredis auto-pipelines scripts with
// the other commands of the same tick, while each MULTI/EXEC costs a socket write of its own (about
// 5 % of the CPU of a refresh in scripts/bench).
// KEYS[1] = the model key; then the grant list if ARGV[6] == '1'; then the session-uid key if
// ARGV[7] == '1'; then the client's grant set if ARGV[8] == '1' (a Grant). ARGV[1] = payload JSON;
// ARGV[2] = TTL seconds ('0': none); ARGV[3] = '1' for a consumable model (a hash {p, c});
// ARGV[4] = consumed-at ('' when not consumed); ARGV[5] = the id.
const UPSERT_SCRIPT = `
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
const CONSUME_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('HSETNX', KEYS[1], 'c', ARGV[1])`;

// KEYS[1] = the grant list. Deletes every key it names and the list; returns the deleted keys.
const REVOKE_GRANT_SCRIPT = `
local keys = redis.call('LRANGE', KEYS[1], 0, -1)
for i = 1, #keys, 500 do
  redis.call('DEL', unpack(keys, i, math.min(i + 499, #keys)))
end
redis.call('DEL', KEYS[1])
return keys`;

/**
 * Lua, shared by every script that reads a token with its grant: with `p` the token's payload JSON,
 * sets `gid` to its grant id (or nil) and `g` to that grant's JSON (or false), reading the grant under
 * `grantPrefix` (a Lua expression, e.g. `ARGV[2]`). The grant's key comes from the payload, so it is
 * not in KEYS: fine on a single Redis (no cluster slots to respect). The id is taken by pattern
 * (cheaper than cjson.decode); a wrong match could only fetch some other grant under its own id,
 * which the caller then never asks for.
 */
export function luaGrantOfPayload(grantPrefix: string): string {
  return `
local gid = string.match(p, '"grantId":"([^"\\\\]+)"')
local g = false
if gid then g = redis.call('GET', ${grantPrefix} .. gid) end`;
}

/**
 * Lua, shared by every script that reads a grant-bound token: with `p` the token's payload JSON, sets
 * `p` to false when the client it names is no longer stored under `clientPrefix` (a Lua expression),
 * so a token of a vanished client reads as no token at all. The id is taken by pattern as above (JSON
 * escapes a quote inside a string, so `"clientId":"` only matches a member name; none of the models'
 * nested objects has one); a payload without a plain client id is left as it is.
 */
export function luaDropIfClientGone(clientPrefix: string): string {
  return `
local cid = string.match(p, '"clientId":"([^"\\\\]+)"')
if cid and redis.call('EXISTS', ${clientPrefix} .. cid) == 0 then p = false end`;
}

// KEYS[1] = a grant-bound model's key; ARGV[1] = '1' for a consumable model (a hash {p, c});
// ARGV[2] = the grant key prefix (`<prefix>Grant:`); ARGV[3] = the client key prefix. Returns false
// when the key or its client is gone, else {payload, consumedAt or false, grantId or false, grant
// JSON or false}.
const FIND_WITH_GRANT_SCRIPT = `
local p, c
if ARGV[1] == '1' then
  local h = redis.call('HMGET', KEYS[1], 'p', 'c')
  p, c = h[1], h[2]
else
  p = redis.call('GET', KEYS[1])
end
if not p then return false end
${luaDropIfClientGone('ARGV[3]')}
if not p then return false end
${luaGrantOfPayload('ARGV[2]')}
return {p, c or false, gid or false, g}`;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const parsed = (json: string | null): AdapterPayload | undefined =>
  json ? (JSON.parse(json) as AdapterPayload) : undefined;

type ScriptedRedis = Redis & {
  oidcFindWithGrant(
    key: string,
    consumable: '0' | '1',
    grantPrefix: string,
    clientPrefix: string,
  ): Promise<FoundWithGrant | null>;
  oidcUpsert(numberOfKeys: number, ...keysAndArgs: string[]): Promise<number>;
  oidcConsume(key: string, now: number): Promise<number>;
  oidcRevokeGrant(grantKey: string): Promise<string[]>;
};

function withScripts(redis: Redis): ScriptedRedis {
  const r = redis as ScriptedRedis;
  if (typeof r.oidcConsume !== 'function') {
    redis.defineCommand('oidcUpsert', { lua: UPSERT_SCRIPT });
    redis.defineCommand('oidcConsume', { numberOfKeys: 1, lua: CONSUME_SCRIPT });
    redis.defineCommand('oidcRevokeGrant', { numberOfKeys: 1, lua: REVOKE_GRANT_SCRIPT });
    redis.defineCommand('oidcFindWithGrant', { numberOfKeys: 1, lua: FIND_WITH_GRANT_SCRIPT });
  }
  return r;
}

/** The adapter class's constructor, as oidc-provider's `adapter` option expects it. */
export type AdapterConstructor = new (name: string) => Adapter;

/**
 * Builds an oidc-provider adapter class bound to one ioredis connection (with auto-pipelining on,
 * each model read is one round trip batched with its neighbours).
 */
export function createRedisAdapter(redis: Redis, options: RedisAdapterOptions): AdapterConstructor {
  const r = withScripts(redis);
  const { prefix } = options;
  const tolerance = options.clockToleranceSeconds ?? 15;
  const grantKey = (grantId: string) => `${prefix}grant:${grantId}`;
  const uidKey = (uid: string) => `${prefix}sessionUid:${uid}`;
  const clientCacheMs = options.clientCacheMs ?? 5_000;
  const clientCacheSize = options.clientCacheSize ?? 1_000;
  /**
   * Client id → its stored metadata, parsed once and deep-frozen, and until when it may be reused.
   * Handed out as is, as oidc-provider's own memory adapter does: nothing can change it in place
   * (a write to it throws), so no copy is needed.
   */
  const clientCache = new Map<string, { payload: AdapterPayload; until: number }>();
  /** Bumped by every client write or delete, so a read that raced one is not cached. */
  let clientWrites = 0;
  const forgetClient = (id: string) => {
    clientWrites++;
    clientCache.delete(id);
  };

  const grantPrefix = `${prefix}Grant:`;
  const clientPrefix = `${prefix}Client:`;
  const currentRequest = () => Provider.ctx as object | undefined;
  const recordUse = options.recordUse;

  /** A grant-bound model's payload from `oidcFindWithGrant`; its grant goes to the request's keep. */
  const withGrant = (
    found: FoundWithGrant | null,
    ctx: object | undefined,
    isUse: boolean,
  ): AdapterPayload | undefined => {
    if (!found) return undefined;
    const [p, c, grantId, grant] = found;
    if (grantId && grant) keepGrant(ctx, grantPrefix + grantId, grant);
    const payload = JSON.parse(p) as AdapterPayload;
    if (isUse && recordUse && payload.clientId) recordUse(payload.clientId);
    return c ? { ...payload, consumed: Number(c) } : payload;
  };

  const revokeGrantTokens = async (grantId: string) => {
    const keys = await r.oidcRevokeGrant(grantKey(grantId));
    await publishRevoked(r, prefix, keys);
  };

  return class RedisAdapter implements Adapter {
    readonly consumable: boolean;
    readonly grantBound: boolean;
    /** Issuing or reading one is a use of its client (client-usage.ts). */
    readonly marksUse: boolean;
    constructor(readonly name: string) {
      this.consumable = CONSUMABLE.has(name);
      this.grantBound = GRANT_BOUND.has(name);
      this.marksUse = MARKS_USE.has(name);
    }

    key(id: string): string {
      return `${prefix}${this.name}:${id}`;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const key = this.key(id);
      const ttl =
        typeof expiresIn === 'number' && expiresIn > 0 ? Math.ceil(expiresIn) + tolerance : undefined;
      const json = JSON.stringify(payload);
      const keys = [key];
      const grant = GRANT_BOUND.has(this.name) && payload.grantId && ttl;
      if (grant) keys.push(grantKey(payload.grantId!));
      const uid = this.name === 'Session' && payload.uid && ttl;
      if (uid) keys.push(uidKey(payload.uid!));
      const indexed = this.name === 'Grant' && payload.clientId;
      if (indexed) keys.push(clientGrantsKey(prefix, payload.clientId!));
      const consumed = this.consumable && payload.consumed ? String(payload.consumed) : '';
      if (this.name === 'Client') forgetClient(id);
      if (this.name === 'Grant') dropGrant(currentRequest(), key);
      await r.oidcUpsert(
        keys.length,
        ...keys,
        json,
        String(ttl ?? 0),
        this.consumable ? '1' : '0',
        consumed,
        id,
        grant ? '1' : '0',
        uid ? '1' : '0',
        indexed ? '1' : '0',
      );
      if (this.name === 'Client') forgetClient(id);
      if (this.marksUse && recordUse && payload.clientId) recordUse(payload.clientId);
    }

    // Not `async`: the read paths return ioredis's promise with one `then`, since every extra
    // promise costs on the introspection path (oidc-provider's AsyncLocalStorage hooks each one).
    find(id: string): Promise<AdapterPayload | undefined> {
      const key = this.key(id);
      if (this.grantBound) {
        const ctx = currentRequest();
        const read =
          takeStartedRead(ctx, key) ??
          r.oidcFindWithGrant(key, this.consumable ? '1' : '0', grantPrefix, clientPrefix);
        return read.then((found) => withGrant(found, ctx, this.marksUse));
      }
      if (this.name === 'Grant') {
        const kept = takeGrant(currentRequest(), key);
        if (kept !== undefined) return Promise.resolve(JSON.parse(kept) as AdapterPayload);
      }
      if (this.name === 'Client' && clientCacheMs > 0) return this.findClient(id, key);
      return r.get(key).then(parsed);
    }

    private findClient(id: string, key: string): Promise<AdapterPayload | undefined> {
      const now = Date.now();
      const cached = clientCache.get(id);
      if (cached && cached.until > now) return Promise.resolve(cached.payload);
      const writes = clientWrites;
      return r.get(key).then((json) => {
        if (!json || writes !== clientWrites) return parsed(json);
        const payload = deepFreeze(JSON.parse(json) as AdapterPayload);
        clientCache.delete(id);
        if (clientCache.size >= clientCacheSize) clientCache.delete(clientCache.keys().next().value!);
        clientCache.set(id, { payload, until: now + clientCacheMs });
        return payload;
      });
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = await r.get(uidKey(uid));
      return id ? this.find(id) : undefined;
    }

    async findByUserCode(): Promise<AdapterPayload | undefined> {
      return undefined; // the device flow is not enabled
    }

    async consume(id: string): Promise<void> {
      const key = this.key(id);
      const outcome = await r.oidcConsume(key, Math.floor(Date.now() / 1000));
      if (outcome === 1) return;
      // Lost a race with another redemption of the same code or refresh token, or it expired meanwhile.
      const p = await r.hget(key, 'p');
      const grantId = p ? (JSON.parse(p) as AdapterPayload).grantId : undefined;
      if (grantId) {
        // The winner may still be saving new tokens under this grant: deleting the Grant record makes
        // them inactive too, since every token is checked against its grant.
        await r.del(`${prefix}Grant:${grantId}`);
        await revokeGrantTokens(grantId);
      }
      throw new errors.InvalidGrant(
        `${this.name === 'RefreshToken' ? 'refresh token' : 'authorization code'} already used`,
      );
    }

    async destroy(id: string): Promise<void> {
      if (this.name === 'Client') forgetClient(id);
      if (this.name === 'Grant') dropGrant(currentRequest(), this.key(id));
      await r.del(this.key(id));
      if (this.name === 'Client') forgetClient(id);
      if (this.name === 'AccessToken') await publishRevoked(r, prefix, [this.key(id)]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      dropGrant(currentRequest(), grantPrefix + grantId);
      await revokeGrantTokens(grantId);
    }
  };
}
