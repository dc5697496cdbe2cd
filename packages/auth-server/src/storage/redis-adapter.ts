/**
 * oidc-provider's storage in Redis, through ioredis. The key layout is redis-keys.ts, the scripts
 * redis-scripts.ts, the in-process client cache client-cache.ts.
 *
 * A token whose client is gone does not exist. Every read of a grant-bound model (access and refresh
 * tokens, codes) checks that the client it names is still stored (in this process's client cache,
 * else with a read that fills it, which oidc-provider's own client lookup then takes), and finds
 * nothing when it is not: introspection says `active: false`, userinfo 401 `invalid_token`, the token
 * endpoint `invalid_grant`, revocation 200, whichever way the client went (deleted by an operator, the
 * sweep, or straight from Redis), instead of oidc-provider failing on the missing client (a 500 on
 * `client.subjectType` in introspection). Every client that can hold tokens is
 * stored in Redis; the only configured (static) client, the resource API's introspector, has no grants.
 * Reads and issues of access and refresh tokens are also reported to `recordUse` (client-usage.ts, which
 * the client lifecycle sweep reads; grant-usage.ts, which Connected apps shows). A Grant is indexed by
 * its client (client removal) and its account (Connected apps) just before the script that stores
 * it, each index with a command of its own (they are in other hash slots than the grant).
 *
 * Why not the upstream example adapter: it reads the grant list's TTL before every write (a second
 * round trip), keeps consumed state in a way a racing second request can also pass, and lets the grant
 * list outlive nothing.
 *
 * The consume contract (held by test/adapter-contract.test.ts): `consume` is atomic (one HSETNX in a
 * script): of any number of concurrent consumptions of one code or refresh token, on any instance,
 * exactly one succeeds; every other revokes the whole grant and is refused with `invalid_grant`, as
 * RFC 6749 §4.1.2 and RFC 9700 §4.14 ask. A consumed token is still found, with `consumed` set to
 * when (Unix seconds), so the refresh extension (provider/refresh-extension/) can read a rotated
 * refresh token and judge it before oidc-provider does; it lets one request at a time consume a refresh
 * token, so with the reuse window on, a second consumption is a bug, not a race.
 *
 * A token and its grant are read in one round trip: they share a hash slot (redis-keys.ts, the slot
 * rule), so this runs unchanged on a Redis Cluster. oidc-provider reads a token, then its grant (the
 * introspection, userinfo, code and refresh paths all do); `oidcFindWithGrant` returns both from one
 * script and the grant is kept for the rest of that same request only (request-reads.ts), where the
 * following `Grant.find` takes it: the grant as it was when the token was read, microseconds before
 * a second GET would have seen it. A grant this request writes or deletes in between is dropped from
 * the keep first. introspection-count.ts goes one step further on the introspection route.
 *
 * A Session that names an account is indexed by it (account-sessions.ts), so its sessions can be ended.
 * A DeviceCode is indexed by its user code, which the device pairing page looks it up by.
 *
 * Every revocation is published for resource servers (revocations.ts).
 *
 * A client id that is a Client ID Metadata Document URL is resolved by `resolveCimdClient` (fetched,
 * checked and cached by cimd/cimd-resolver.ts), so every endpoint sees that client the same way.
 */
import type { RedisClient } from '@school/shared';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import { isCimdClientId } from '../clients/client-id-url.js';
import { ClientCache } from './client-cache.js';
import {
  currentRequest,
  dropGrant,
  keepGrant,
  takeGrant,
  takeMadeRead,
  type FoundWithGrant,
} from './request-reads.js';
import {
  accountGrantsKey,
  clientGrantsKey,
  grantListKey,
  grantTag,
  modelKey,
  modelPrefix,
  sessionUidKey,
  userCodeKey,
} from './redis-keys.js';
import { withScripts } from './redis-scripts.js';
import { indexAccountSession } from './account-sessions.js';
import { publishRevoked } from './revocations.js';

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
  /** At most this many clients are cached (the least recently used goes first). Default 1000. */
  clientCacheSize?: number;
  /**
   * Told the client id and grant id whenever an access or refresh token is issued or read
   * (client-usage.ts, grant-usage.ts).
   */
  recordUse?: (clientId: string, grantId?: string) => void;
  /**
   * Finds a client whose id is a Client ID Metadata Document URL (cimd/cimd-resolver.ts); without it
   * such ids are looked up as stored clients.
   */
  resolveCimdClient?: (clientId: string) => Promise<AdapterPayload>;
  /**
   * Told when a request looks up a client that is not stored (`Provider.ctx`, undefined outside a
   * request); it may refuse the request by throwing (http/unidentified-client-limit.ts).
   */
  onClientMissing?: (request: object | undefined) => Promise<void>;
}

/** How long a DPoP proof's id is reserved before its save sets its expiry, seconds. */
const REPLAY_RESERVATION_SECONDS = 600;
/** The replay ids a request reserved, kept on the request object itself (it dies with the request). */
const RESERVED = Symbol('reserved-replay-ids');
type Reserving = { [RESERVED]?: Set<string> };

const parsed = (json: string | null): AdapterPayload | undefined =>
  json ? (JSON.parse(json) as AdapterPayload) : undefined;

/**
 * A stored client record. One that is not a JSON object (corrupt) is a client that cannot be used:
 * `invalid_client` where it is named, never a storage outage; the account pages list it as
 * unavailable beside the others (account-pages/client-rows.ts).
 */
function clientRecord(json: string | null): AdapterPayload | undefined {
  if (json === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new errors.InvalidClient('the stored client record cannot be read');
  return value as AdapterPayload;
}

/** The adapter class's constructor, as oidc-provider's `adapter` option expects it. */
export type AdapterConstructor = new (name: string) => Adapter;

/**
 * Builds an oidc-provider adapter class bound to one ioredis connection (with auto-pipelining on,
 * each model read is one round trip batched with its neighbours).
 */
export function createRedisAdapter(redis: RedisClient, options: RedisAdapterOptions): AdapterConstructor {
  const r = withScripts(redis);
  const { prefix, recordUse, resolveCimdClient, onClientMissing } = options;
  const tolerance = options.clockToleranceSeconds ?? 15;
  const clientCacheMs = options.clientCacheMs ?? 5_000;
  const clients =
    clientCacheMs > 0 ? new ClientCache(clientCacheMs, options.clientCacheSize ?? 1_000) : undefined;
  const grantPrefix = modelPrefix(prefix, 'Grant');

  /** Whether `clientId` is stored: from the client cache, else read into it (its key is in another slot). */
  const clientStored = (clientId: string): boolean | Promise<boolean> => {
    if (!clients) return r.exists(modelKey(prefix, 'Client', clientId)).then((n) => n === 1);
    if (clients.get(clientId)) return true;
    const started = clients.readStarted();
    return r.get(modelKey(prefix, 'Client', clientId)).then((json) => {
      try {
        return !!clients.keep(clientId, clientRecord(json), started);
      } catch {
        return false; // unreadable: a client that cannot be used has no tokens to find
      }
    });
  };

  /**
   * A grant-bound model's payload from `oidcFindWithGrant`, or nothing when its client is gone; its
   * grant goes to the request's keep.
   */
  const withGrant = (
    found: FoundWithGrant | null,
    ctx: object | undefined,
    isUse: boolean,
  ): AdapterPayload | undefined | Promise<AdapterPayload | undefined> => {
    if (!found) return undefined;
    const [p, c, grantId, grant] = found;
    const payload = JSON.parse(p) as AdapterPayload;
    const accept = (stored: boolean) => {
      if (!stored) return undefined;
      if (grantId && grant) keepGrant(ctx, modelKey(prefix, 'Grant', grantId), grant);
      if (isUse && recordUse && payload.clientId) recordUse(payload.clientId, payload.grantId);
      return c ? { ...payload, consumed: Number(c) } : payload;
    };
    if (typeof payload.clientId !== 'string') return accept(true);
    const stored = clientStored(payload.clientId);
    return typeof stored === 'boolean' ? accept(stored) : stored.then(accept);
  };

  /** Deletes every token of a grant (and the Grant itself with `withGrant`), and publishes them. */
  const revokeGrantTokens = async (grantId: string, withGrantRecord = false) => {
    const list = grantListKey(prefix, grantId);
    const last = withGrantRecord ? modelKey(prefix, 'Grant', grantId) : list;
    await publishRevoked(r, prefix, await r.oidcRevokeGrant(list, last));
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
      return modelKey(prefix, this.name, id);
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const key = this.key(id);
      const ttl =
        typeof expiresIn === 'number' && expiresIn > 0 ? Math.ceil(expiresIn) + tolerance : undefined;
      let list = key; // the grant's token list, or the key again (redis-scripts.ts UPSERT)
      const grant = this.grantBound && payload.grantId && ttl;
      if (grant) {
        // The slot rule (redis-keys.ts): provider/grant-token-ids.ts mints such ids; anything else
        // would land in another slot than its grant and fail on a cluster only, so it fails here.
        if (!id.startsWith(grantTag(payload.grantId!)))
          throw new Error(`${this.name} id does not start with its grant's tag (storage/redis-keys.ts)`);
        list = grantListKey(prefix, payload.grantId!);
      }
      const consumed = this.consumable && payload.consumed ? String(payload.consumed) : '';
      if (this.name === 'Client') clients?.forget(id);
      if (this.name === 'Grant') dropGrant(currentRequest(), key);
      // A grant's indexes, by client (client removal) and by account (Connected apps), are each in a
      // slot of their own, not the grant's: written first, each its own command, so a grant is never
      // stored unindexed (an index naming a grant that failed to store names nothing; both drop it).
      if (this.name === 'Grant' && payload.clientId) {
        const expiry = String(ttl ?? 0);
        await Promise.all([
          r.oidcIndexGrant(clientGrantsKey(prefix, payload.clientId), id, expiry),
          payload.accountId && r.oidcIndexGrant(accountGrantsKey(prefix, payload.accountId), id, expiry),
        ]);
      }
      // A signed-in session is indexed by its account (account-sessions.ts), beside the script.
      const sessionOf = this.name === 'Session' && ttl ? payload.accountId : undefined;
      const stored = r.oidcUpsert(
        key,
        list,
        JSON.stringify(payload),
        String(ttl ?? 0),
        this.consumable ? '1' : '0',
        consumed,
        grant ? '1' : '0',
      );
      if (sessionOf) await Promise.all([stored, indexAccountSession(r, prefix, sessionOf, id, ttl!)]);
      else await stored;
      // A user code's key is in a slot of its own: written after the DeviceCode it points to.
      if (this.name === 'DeviceCode' && typeof payload.userCode === 'string' && ttl)
        await r.set(userCodeKey(prefix, payload.userCode), id, 'EX', ttl);
      // The uid's key is in a slot of its own: written after the Session it points to.
      if (this.name === 'Session' && payload.uid && ttl)
        await r.set(sessionUidKey(prefix, payload.uid), id, 'EX', ttl);
      if (this.name === 'Client') clients?.forget(id);
      if (this.marksUse && recordUse && payload.clientId) recordUse(payload.clientId, payload.grantId);
    }

    // Not `async`: the read paths return ioredis's promise with one `then`, since every extra
    // promise costs on the introspection path (oidc-provider's AsyncLocalStorage hooks each one).
    find(id: string): Promise<AdapterPayload | undefined> {
      const key = this.key(id);
      if (this.grantBound) {
        const ctx = currentRequest();
        const read =
          takeMadeRead(ctx, key) ?? r.oidcFindWithGrant(key, this.consumable ? '1' : '0', grantPrefix);
        return read.then((found) => withGrant(found, ctx, this.marksUse));
      }
      if (this.name === 'Grant') {
        const kept = takeGrant(currentRequest(), key);
        if (kept !== undefined) return Promise.resolve(JSON.parse(kept) as AdapterPayload);
      }
      // oidc-provider's ReplayDetection.unique (a DPoP proof's jti at the token endpoint) reads, then
      // saves: two instances could both read "not seen". The read reserves the id instead (SET NX), so
      // exactly one request in the deployment finds a proof new; the save then sets its real expiry.
      // The request that reserved it finds it new again: its proof is checked before the grant runs
      // and once more by the grant (provider/dpop-replay-first.ts), and it is not its own replay.
      if (this.name === 'ReplayDetection') {
        const request = currentRequest() as Reserving | undefined;
        if (request?.[RESERVED]?.has(key)) return Promise.resolve(undefined);
        return r.set(key, '{}', 'EX', REPLAY_RESERVATION_SECONDS, 'NX').then((reserved) => {
          if (!reserved) return { jti: id };
          if (request) (request[RESERVED] ??= new Set()).add(key);
          return undefined;
        });
      }
      if (this.name === 'Client' && resolveCimdClient && isCimdClientId(id)) return resolveCimdClient(id);
      if (this.name === 'Client') {
        const cached = clients?.get(id);
        if (cached) return Promise.resolve(cached);
        const started = clients?.readStarted() ?? 0;
        return r.get(key).then(async (json) => {
          const client = clients ? clients.keep(id, clientRecord(json), started) : clientRecord(json);
          if (!client && onClientMissing) await onClientMissing(currentRequest());
          return client;
        });
      }
      return r.get(key).then(parsed);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = await r.get(sessionUidKey(prefix, uid));
      return id ? this.find(id) : undefined;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const id = await r.get(userCodeKey(prefix, userCode));
      return id ? this.find(id) : undefined;
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
        await revokeGrantTokens(grantId, true);
      }
      throw new errors.InvalidGrant(
        `${this.name === 'RefreshToken' ? 'refresh token' : 'authorization code'} already used`,
      );
    }

    async destroy(id: string): Promise<void> {
      if (this.name === 'Client') clients?.forget(id);
      if (this.name === 'Grant') dropGrant(currentRequest(), this.key(id));
      await r.del(this.key(id));
      if (this.name === 'Client') clients?.forget(id);
      if (this.name === 'AccessToken') await publishRevoked(r, prefix, [this.key(id)]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      dropGrant(currentRequest(), modelKey(prefix, 'Grant', grantId));
      await revokeGrantTokens(grantId);
    }
  };
}
