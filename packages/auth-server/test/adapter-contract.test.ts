/**
 * The storage contract oidc-provider relies on, run against every adapter: our Redis adapter on real
 * Redis and oidc-provider's own in-memory adapter (the reference the contract is read from). What is
 * stored is found again whole, expiry follows the model's lifetime, consumption is recorded, a grant's
 * revocation removes every token of the grant and no other, sessions are found by uid.
 *
 * What only the Redis adapter promises is checked on Redis alone: TTLs and key layout in Redis,
 * consumption that is durable and atomic (a Lua script; the memory adapter lets two racing
 * consumptions both pass), and revocations published for resource servers.
 *
 * Both run on one Redis node and on a Redis Cluster of three primaries (test-support/redis-cluster.ts,
 * ports 7111-7116),
 * where a script touching keys of two hash slots fails (CROSSSLOT): grant-bound tokens are made with
 * ids that start with their grant's tag, as oidc-provider mints them here (grant-token-ids.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Adapter } from 'oidc-provider';
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';
import { createRedisAdapter, type AdapterConstructor } from '../src/storage/redis-adapter.js';
import { awaitAnswer, claimRefresh, publishAnswer, type KeptAnswer } from '../src/storage/refresh-race.js';
import { accountGrants, endAccountAccess } from '../src/storage/account-grants.js';
import { listClients, storedClients } from '../src/storage/client-listing.js';
import { createGrantUsageRecorder, grantsLastUsed } from '../src/storage/grant-usage.js';
import {
  cimdConsentKey,
  grantListKey,
  grantTag,
  grantUsageKey,
  modelKey,
  refreshAnswersKey,
  refreshClaimKey,
} from '../src/storage/redis-keys.js';
import { createRedisClient, revocationChannel, scanKeys, tokenHash, type RedisClient } from '@school/shared';
import { SERVICES } from '../../../test-support/auth-server.js';
import { pollUntil } from '../../../test-support/processes.js';
import { startRedisCluster } from '../../../test-support/redis-cluster.js';

/** Makes the adapter of one model, as oidc-provider does for each of its models. */
type AdapterFactory = (name: string) => Adapter;

const id = () => randomBytes(12).toString('base64url');
/** A token id of grant `grantId`, as the provider mints it (provider/grant-token-ids.ts). */
const tokenOf = (grantId: string) => grantTag(grantId) + id();

/** Stores an authorization code of a new grant for `seconds` with `codes`; its id. */
async function storeCode(codes: Adapter, seconds: number): Promise<string> {
  const grantId = id();
  const cid = tokenOf(grantId);
  await codes.upsert(cid, { jti: cid, kind: 'AuthorizationCode', grantId }, seconds);
  return cid;
}

/** The contract every adapter keeps; `adapters()` is read once the suite's `beforeAll` has run. */
function adapterContract(label: string, adapters: () => AdapterFactory): void {
  describe(`${label} (the storage contract)`, () => {
    const adapter = (name: string) => adapters()(name);

    it('finds what it stored, whole, and nothing for an unknown id', async () => {
      const session = adapter('Session');
      const payload = {
        accountId: 'acc-1',
        uid: id(),
        loginTs: 1,
        authorizations: { c1: { grantId: 'g', persistsLogout: true } },
      };
      const sid = id();
      await session.upsert(sid, payload, 60);
      expect(await session.find(sid)).toEqual(payload);
      expect(await session.find(id())).toBeUndefined();
    });

    it('forgets an entry once its lifetime is over', async () => {
      const codes = adapter('AuthorizationCode');
      const cid = await storeCode(codes, 1);
      expect(await codes.find(cid)).toBeDefined();
      await new Promise((r) => setTimeout(r, 2100));
      expect(await codes.find(cid)).toBeUndefined();
    });

    it('keeps a client stored without a lifetime', async () => {
      const clients = adapter('Client');
      const cid = id();
      await clients.upsert(cid, { client_id: cid, redirect_uris: ['http://127.0.0.1/cb'] });
      expect(await clients.find(cid)).toMatchObject({ client_id: cid });
    });

    it('marks a code consumed, with the time of consumption', async () => {
      const codes = adapter('AuthorizationCode');
      const cid = await storeCode(codes, 60);
      expect((await codes.find(cid))?.consumed).toBeUndefined();
      await codes.consume(cid);
      expect((await codes.find(cid))?.consumed).toEqual(expect.any(Number));
    });

    it('revokes every token of a grant, whichever model asks, and leaves other grants alone', async () => {
      const grantId = id();
      const made: Array<[string, string]> = [];
      for (const name of ['AccessToken', 'RefreshToken', 'AuthorizationCode']) {
        const tid = tokenOf(grantId);
        await adapter(name).upsert(tid, { jti: tid, kind: name, grantId }, 60);
        made.push([name, tid]);
      }
      const otherGrant = id();
      const survivor = tokenOf(otherGrant);
      await adapter('AccessToken').upsert(
        survivor,
        { jti: survivor, kind: 'AccessToken', grantId: otherGrant },
        60,
      );

      await adapter('RefreshToken').revokeByGrantId(grantId);
      for (const [name, tid] of made) expect(await adapter(name).find(tid)).toBeUndefined();
      expect(await adapter('AccessToken').find(survivor)).toBeDefined();
    });

    it('stores and revokes the tokens of many grants at once (in one tick, as concurrent requests do)', async () => {
      const grants = Array.from({ length: 12 }, () => id());
      const tokens = grants.map((grantId) => [grantId, tokenOf(grantId)] as const);
      await Promise.all(
        tokens.map(([grantId, tid]) =>
          adapter('RefreshToken').upsert(tid, { jti: tid, kind: 'RefreshToken', grantId }, 60),
        ),
      );
      const found = await Promise.all(tokens.map(([, tid]) => adapter('RefreshToken').find(tid)));
      expect(found.every(Boolean)).toBe(true);
      await Promise.all(grants.map((grantId) => adapter('RefreshToken').revokeByGrantId(grantId)));
      const after = await Promise.all(tokens.map(([, tid]) => adapter('RefreshToken').find(tid)));
      expect(after.filter(Boolean)).toEqual([]);
    });

    it('finds a session by its uid, and not after the session is destroyed', async () => {
      const sessions = adapter('Session');
      const sid = id();
      const uid = id();
      await sessions.upsert(sid, { uid, accountId: 'a' }, 60);
      expect(await sessions.findByUid(uid)).toMatchObject({ uid, accountId: 'a' });
      await sessions.destroy(sid);
      expect(await sessions.findByUid(uid)).toBeUndefined();
    });
  });
}

/** The Redis adapter's contract and its own promises on one Redis deployment. */
function onRedis(backend: string, settings: () => Parameters<typeof createRedisClient>[0]): void {
  const prefix = `adaptertest:${randomBytes(4).toString('hex')}:`;
  let redis: RedisClient;
  let RedisAdapter: AdapterConstructor;
  const adapter = (name: string): Adapter => new RedisAdapter(name);
  const connect = async (use: 'commands' | 'subscriber') => {
    const client = createRedisClient(settings(), use);
    await client.connect();
    return client;
  };

  beforeAll(async () => {
    redis = await connect('commands');
    RedisAdapter = createRedisAdapter(redis, { prefix, clockToleranceSeconds: 0 });
  });
  afterAll(async () => {
    for await (const keys of scanKeys(redis, prefix)) await Promise.all(keys.map((k) => redis.del(k)));
    await redis.quit();
  });

  adapterContract(`the Redis adapter on ${backend}`, () => adapter);

  describe(`the Redis adapter on ${backend} (what only Redis promises)`, () => {
    it('sets the key to expire with the model lifetime (plus the clock tolerance)', async () => {
      const RedisWithTolerance = createRedisAdapter(redis, { prefix, clockToleranceSeconds: 15 });
      const tokens = new RedisWithTolerance('AccessToken');
      const tid = id();
      await tokens.upsert(tid, { jti: tid, kind: 'AccessToken' }, 100);
      const ttl = await redis.ttl(modelKey(prefix, 'AccessToken', tid));
      expect(ttl).toBeGreaterThan(110);
      expect(ttl).toBeLessThanOrEqual(115);
    });

    it('keeps clients without a lifetime forever', async () => {
      const clients = adapter('Client');
      const cid = id();
      await clients.upsert(cid, { client_id: cid, redirect_uris: ['http://127.0.0.1/cb'] });
      expect(await redis.ttl(modelKey(prefix, 'Client', cid))).toBe(-1);
      expect(await clients.find(cid)).toMatchObject({ client_id: cid });
    });

    it('marks a code consumed durably, keeping its lifetime, as a fresh connection sees it', async () => {
      const codes = adapter('AuthorizationCode');
      const cid = await storeCode(codes, 60);
      await codes.consume(cid);
      const other = await connect('commands');
      try {
        const reloaded = await new (createRedisAdapter(other, { prefix }))('AuthorizationCode').find(cid);
        expect(reloaded?.consumed).toEqual(expect.any(Number));
      } finally {
        await other.quit();
      }
      expect(await redis.ttl(modelKey(prefix, 'AuthorizationCode', cid))).toBeGreaterThan(50);
    });

    it('lets only one of two concurrent consumptions win, and the loser revokes the grant', async () => {
      const grantId = id();
      const refresh = adapter('RefreshToken');
      const access = adapter('AccessToken');
      const rid = tokenOf(grantId);
      const aid = tokenOf(grantId);
      await adapter('Grant').upsert(grantId, { jti: grantId, kind: 'Grant' }, 60);
      await refresh.upsert(rid, { jti: rid, kind: 'RefreshToken', grantId }, 60);
      await access.upsert(aid, { jti: aid, kind: 'AccessToken', grantId }, 60);

      const outcomes = await Promise.allSettled([refresh.consume(rid), refresh.consume(rid)]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toMatchObject({ error: 'invalid_grant' });
      expect(await access.find(aid)).toBeUndefined();
      expect(await adapter('Grant').find(grantId)).toBeUndefined();
    });

    it('consumes atomically across instances: one of many wins, the token reads consumed, the rest revoke', async () => {
      // Five connections, as five auth-server instances: the consume contract the refresh extension and
      // the code exchange rely on (storage/redis-adapter.ts, "The consume contract").
      const instances = await Promise.all([1, 2, 3, 4, 5].map(() => connect('commands')));
      try {
        const grantId = id();
        const rid = tokenOf(grantId);
        await adapter('Grant').upsert(grantId, { jti: grantId, kind: 'Grant' }, 60);
        await adapter('RefreshToken').upsert(rid, { jti: rid, kind: 'RefreshToken', grantId }, 60);
        const outcomes = await Promise.allSettled(
          instances.map((client) =>
            new (createRedisAdapter(client, { prefix }))('RefreshToken').consume(rid),
          ),
        );
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        for (const lost of outcomes.filter((o) => o.status === 'rejected'))
          expect(lost.reason).toMatchObject({ error: 'invalid_grant' });
        expect(await adapter('Grant').find(grantId)).toBeUndefined();
      } finally {
        await Promise.all(instances.map((client) => client.quit()));
      }
      // A lone consumption leaves the token readable, consumed, with its time.
      const grantId = id();
      const rid = tokenOf(grantId);
      await adapter('RefreshToken').upsert(rid, { jti: rid, kind: 'RefreshToken', grantId }, 60);
      const before = Math.floor(Date.now() / 1000);
      await adapter('RefreshToken').consume(rid);
      const consumed = Number((await adapter('RefreshToken').find(rid))?.consumed);
      expect(consumed).toBeGreaterThanOrEqual(before);
      expect(consumed).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    });

    it('lets one request claim a refresh token, and wakes the others with its answer (refresh-race.ts)', async () => {
      const rid = tokenOf(id());
      const claims = await Promise.all([1, 2, 3].map(() => claimRefresh(redis, prefix, rid, 5)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      // Two waiters block on the answer before it exists; both get it, and it stays for a third.
      const waiting = [awaitAnswer(redis, prefix, rid, 5_000), awaitAnswer(redis, prefix, rid, 5_000)];
      const kept: KeptAnswer = { clientId: 'c', address: '127.0.0.1', at: 1, answer: { refresh_token: 'r' } };
      let settled = 0;
      for (const wait of waiting) void wait.then(() => settled++);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(settled).toBe(0); // nothing to read yet: they wait
      await publishAnswer(redis, prefix, rid, kept, 5, false);
      expect(await Promise.all(waiting)).toEqual([kept, kept]);
      expect(await awaitAnswer(redis, prefix, rid, 0)).toEqual(kept);
      expect(await claimRefresh(redis, prefix, rid, 5)).toBe(false); // kept: the token was consumed
      // A holder that did not consume lets go of the claim; a waiter then sees it answered nothing.
      const other = tokenOf(id());
      expect(await claimRefresh(redis, prefix, other, 5)).toBe(true);
      await publishAnswer(redis, prefix, other, { retry: true }, 5, true);
      expect(await awaitAnswer(redis, prefix, other, 0)).toEqual({ retry: true });
      expect(await claimRefresh(redis, prefix, other, 5)).toBe(true);
      expect(await awaitAnswer(redis, prefix, other, 0)).toBeUndefined(); // a new claim, no answer yet
      // Nobody answers: the wait ends empty.
      expect(await awaitAnswer(redis, prefix, tokenOf(id()), 100)).toBeUndefined();
    });

    it("indexes grants by account, and ending an account's access to one app ends that app's grants only", async () => {
      const accountId = id();
      const app = id();
      const ended = [id(), id()];
      const kept = id();
      for (const [grantId, clientId] of [...ended.map((g) => [g, app]), [kept, id()]] as const) {
        await adapter('Grant').upsert(
          grantId,
          { jti: grantId, kind: 'Grant', accountId, clientId, iat: 1 },
          60,
        );
        const tid = tokenOf(grantId);
        await adapter('AccessToken').upsert(tid, { jti: tid, kind: 'AccessToken', grantId, clientId }, 60);
      }
      const held = async () => (await accountGrants(redis, prefix, accountId)).map((g) => g.grantId).sort();
      expect(await held()).toEqual([...ended, kept].sort());
      expect(await endAccountAccess(redis, prefix, accountId, app)).toEqual({ grants: 2, tokens: 2 });
      expect(await held()).toEqual([kept]);
      for (const grantId of ended) expect(await redis.exists(modelKey(prefix, 'Grant', grantId))).toBe(0);
      expect(await redis.exists(modelKey(prefix, 'Grant', kept))).toBe(1);
    });

    it('lists every stored client page by page, with how many accounts granted each (All clients)', async () => {
      const ids = Array.from({ length: 7 }, () => `list-${id()}`);
      for (const cid of ids) await adapter('Client').upsert(cid, { client_id: cid, redirect_uris: [] });
      for (const accountId of ['a1', 'a2']) {
        const grantId = id();
        await adapter('Grant').upsert(
          grantId,
          { jti: grantId, kind: 'Grant', accountId, clientId: ids[0] },
          60,
        );
      }
      const listed = new Map<string, number>();
      let cursor: string | undefined = '0';
      for (let pages = 0; cursor && pages < 100; pages++) {
        const page = await listClients(redis, prefix, { cursor, pageSize: 2 });
        for (const c of page.clients) listed.set(c.clientId, c.accounts);
        cursor = page.next;
      }
      expect(ids.filter((cid) => !listed.has(cid))).toEqual([]);
      expect(listed.get(ids[0]!)).toBe(2);
      expect([...(await storedClients(redis, prefix, ids)).keys()].sort()).toEqual([...ids].sort());
    });

    it('records and reads the last use of several grants at once', async () => {
      const grants = [id(), id(), id()];
      const record = createGrantUsageRecorder(redis, { prefix, grantTtlSeconds: 60 });
      record(grants[0]!);
      record(grants[1]!);
      const before = Math.floor(Date.now() / 1000) - 1;
      let times: Array<number | undefined> = [];
      await pollUntil(async () => {
        times = await grantsLastUsed(redis, prefix, grants);
        return times.filter(Boolean).length === 2;
      }, 'both uses written (the recorder does not wait for its write)').catch(() => undefined);
      expect(times).toEqual([expect.any(Number), expect.any(Number), undefined]);
      expect(times[0]).toBeGreaterThanOrEqual(before);
    });

    it("removes a grant's token list with its tokens", async () => {
      const grantId = id();
      const tid = tokenOf(grantId);
      await adapter('AccessToken').upsert(tid, { jti: tid, kind: 'AccessToken', grantId }, 60);
      expect(await redis.exists(grantListKey(prefix, grantId))).toBe(1);
      await adapter('RefreshToken').revokeByGrantId(grantId);
      expect(await adapter('AccessToken').find(tid)).toBeUndefined();
      expect(await redis.exists(grantListKey(prefix, grantId))).toBe(0);
    });

    it('keeps the grant index alive as long as its longest-lived token', async () => {
      const grantId = id();
      await adapter('AccessToken').upsert(tokenOf(grantId), { kind: 'AccessToken', grantId }, 30);
      await adapter('RefreshToken').upsert(tokenOf(grantId), { kind: 'RefreshToken', grantId }, 300);
      await adapter('AccessToken').upsert(tokenOf(grantId), { kind: 'AccessToken', grantId }, 30);
      const ttl = await redis.ttl(grantListKey(prefix, grantId));
      expect(ttl).toBeGreaterThan(290);
    });

    it('publishes the hashes of revoked access tokens, never the tokens', async () => {
      const sub = await connect('subscriber');
      const messages: string[] = [];
      try {
        await sub.subscribe(revocationChannel(prefix));
        sub.on('message', (_channel: string, message: string) => messages.push(message));
        const grantId = id();
        const loneGrant = id();
        const aid = tokenOf(grantId);
        const lone = tokenOf(loneGrant);
        await adapter('AccessToken').upsert(aid, { kind: 'AccessToken', grantId }, 60);
        await adapter('AccessToken').upsert(lone, { kind: 'AccessToken', grantId: loneGrant }, 60);
        await adapter('AccessToken').revokeByGrantId(grantId);
        await adapter('AccessToken').destroy(lone);
        // On a cluster, PUBLISH reaches the subscriber's node over the cluster bus, in no set order
        // and sometimes after a later SUBSCRIBE: an earlier test's message may arrive here too. So:
        // wait for both hashes, and judge every message by its shape.
        const expected = [tokenHash(aid), tokenHash(lone)];
        const hashes = () => messages.flatMap((m) => (JSON.parse(m) as { tokens: string[] }).tokens);
        for (let i = 0; i < 100 && !expected.every((h) => hashes().includes(h)); i++)
          await new Promise((r) => setTimeout(r, 20));
        expect(hashes()).toEqual(expect.arrayContaining(expected));
        expect(hashes().every((h) => /^[0-9a-f]{64}$/.test(h))).toBe(true);
        expect(messages.join()).not.toContain(aid);
        expect(messages.join()).not.toContain(lone);
      } finally {
        await sub.quit();
      }
    });
  });
}

const memory = createMemoryAdapter(0);
adapterContract("oidc-provider's memory adapter", () => memory);

let cluster: ReturnType<typeof startRedisCluster> | undefined;
beforeAll(() => {
  cluster = startRedisCluster(7111); // its own ports, started and stopped by this file
}, 60_000);
afterAll(() => cluster?.stop());
onRedis('one node', () => ({ REDIS_URL: SERVICES.redisUrl }));
onRedis('a Redis Cluster', () => ({ REDIS_URL: 'redis://127.0.0.1', REDIS_CLUSTER_NODES: cluster!.nodes }));

describe('the slot rule (redis-keys.ts), as a Redis Cluster computes slots', () => {
  it("puts a grant, its token list, its tokens and every record about them in the grant's slot", async () => {
    const redis = createRedisClient(
      { REDIS_URL: 'redis://127.0.0.1', REDIS_CLUSTER_NODES: cluster!.nodes },
      'commands',
    );
    await redis.connect();
    try {
      const prefix = 'oidc:';
      const grantId = id();
      const token = tokenOf(grantId);
      const keys = {
        grant: modelKey(prefix, 'Grant', grantId),
        tokenList: grantListKey(prefix, grantId),
        code: modelKey(prefix, 'AuthorizationCode', token),
        accessToken: modelKey(prefix, 'AccessToken', token),
        refreshToken: modelKey(prefix, 'RefreshToken', token),
        refreshClaim: refreshClaimKey(prefix, token),
        refreshAnswers: refreshAnswersKey(prefix, token),
        cimdConsent: cimdConsentKey(prefix, grantId),
        lastUse: grantUsageKey(prefix, grantId),
      };
      const grantSlot = await redis.cluster('KEYSLOT', keys.grant);
      const slots: Record<string, unknown> = {};
      for (const [what, key] of Object.entries(keys)) slots[what] = await redis.cluster('KEYSLOT', key);
      expect(slots).toEqual(Object.fromEntries(Object.keys(keys).map((what) => [what, grantSlot])));
    } finally {
      await redis.quit();
    }
  });
});
