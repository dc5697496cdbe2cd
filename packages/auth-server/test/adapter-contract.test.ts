/**
 * The storage contract oidc-provider relies on, run against every adapter: our Redis adapter on real
 * Redis and oidc-provider's own in-memory adapter (the reference the contract is read from). What is
 * stored is found again whole, expiry follows the model's lifetime, consumption is recorded, a grant's
 * revocation removes every token of the grant and no other, sessions are found by uid.
 *
 * What only the Redis adapter promises is checked on Redis alone: TTLs and key layout in Redis,
 * consumption that is durable and atomic (a Lua script; the memory adapter lets two racing
 * consumptions both pass), and revocations published for resource servers.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { Adapter } from 'oidc-provider';
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';
import { createRedisAdapter, type AdapterConstructor } from '../src/storage/redis-adapter.js';
import { revocationChannel, tokenHash } from '@school/shared';
import { SERVICES } from '../../../test-support/auth-server.js';

/** Makes the adapter of one model, as oidc-provider does for each of its models. */
type AdapterFactory = (name: string) => Adapter;

const id = () => randomBytes(12).toString('base64url');

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
      const cid = id();
      await codes.upsert(cid, { jti: cid, kind: 'AuthorizationCode', grantId: id() }, 1);
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
      const cid = id();
      await codes.upsert(cid, { jti: cid, kind: 'AuthorizationCode', grantId: id() }, 60);
      expect((await codes.find(cid))?.consumed).toBeUndefined();
      await codes.consume(cid);
      expect((await codes.find(cid))?.consumed).toEqual(expect.any(Number));
    });

    it('revokes every token of a grant, whichever model asks, and leaves other grants alone', async () => {
      const grantId = id();
      const made: Array<[string, string]> = [];
      for (const name of ['AccessToken', 'RefreshToken', 'AuthorizationCode']) {
        const tid = id();
        await adapter(name).upsert(tid, { jti: tid, kind: name, grantId }, 60);
        made.push([name, tid]);
      }
      const survivor = id();
      await adapter('AccessToken').upsert(
        survivor,
        { jti: survivor, kind: 'AccessToken', grantId: id() },
        60,
      );

      await adapter('RefreshToken').revokeByGrantId(grantId);
      for (const [name, tid] of made) expect(await adapter(name).find(tid)).toBeUndefined();
      expect(await adapter('AccessToken').find(survivor)).toBeDefined();
    });

    it('finds a session by its uid, and not after the session is destroyed', async () => {
      const sessions = adapter('Session');
      const sid = id();
      const uid = id();
      await sessions.upsert(sid, { uid, accountId: 'a' }, 60);
      expect(await sessions.findByUid!(uid)).toMatchObject({ uid, accountId: 'a' });
      await sessions.destroy(sid);
      expect(await sessions.findByUid!(uid)).toBeUndefined();
    });
  });
}

const prefix = `adaptertest:${randomBytes(4).toString('hex')}:`;
let redis: Redis;
let RedisAdapter: AdapterConstructor;
const adapter = (name: string): Adapter => new RedisAdapter(name);

beforeAll(async () => {
  redis = new Redis(SERVICES.redisUrl, { enableAutoPipelining: true });
  RedisAdapter = createRedisAdapter(redis, { prefix, clockToleranceSeconds: 0 });
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

adapterContract('the Redis adapter', () => adapter);
const memory = createMemoryAdapter(0);
adapterContract("oidc-provider's memory adapter", () => memory);

describe('the Redis adapter (what only Redis promises)', () => {
  it('sets the key to expire with the model lifetime (plus the clock tolerance)', async () => {
    const RedisWithTolerance = createRedisAdapter(redis, { prefix, clockToleranceSeconds: 15 });
    const tokens = new RedisWithTolerance('AccessToken');
    const tid = id();
    await tokens.upsert(tid, { jti: tid, kind: 'AccessToken' }, 100);
    const ttl = await redis.ttl(`${prefix}AccessToken:${tid}`);
    expect(ttl).toBeGreaterThan(110);
    expect(ttl).toBeLessThanOrEqual(115);
  });

  it('keeps clients without a lifetime forever', async () => {
    const clients = adapter('Client');
    const cid = id();
    await clients.upsert(cid, { client_id: cid, redirect_uris: ['http://127.0.0.1/cb'] });
    expect(await redis.ttl(`${prefix}Client:${cid}`)).toBe(-1);
    expect(await clients.find(cid)).toMatchObject({ client_id: cid });
  });

  it('marks a code consumed durably, keeping its lifetime, as a fresh connection sees it', async () => {
    const codes = adapter('AuthorizationCode');
    const cid = id();
    await codes.upsert(cid, { jti: cid, kind: 'AuthorizationCode', grantId: id() }, 60);
    await codes.consume(cid);
    const other = new Redis(SERVICES.redisUrl);
    try {
      const reloaded = await new (createRedisAdapter(other, { prefix }))('AuthorizationCode').find(cid);
      expect(reloaded?.consumed).toEqual(expect.any(Number));
    } finally {
      await other.quit();
    }
    expect(await redis.ttl(`${prefix}AuthorizationCode:${cid}`)).toBeGreaterThan(50);
  });

  it('lets only one of two concurrent consumptions win, and the loser revokes the grant', async () => {
    const grantId = id();
    const refresh = adapter('RefreshToken');
    const access = adapter('AccessToken');
    const rid = id();
    const aid = id();
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

  it("removes a grant's token list with its tokens", async () => {
    const grantId = id();
    const tid = id();
    await adapter('AccessToken').upsert(tid, { jti: tid, kind: 'AccessToken', grantId }, 60);
    expect(await redis.exists(`${prefix}grant:${grantId}`)).toBe(1);
    await adapter('RefreshToken').revokeByGrantId(grantId);
    expect(await adapter('AccessToken').find(tid)).toBeUndefined();
    expect(await redis.exists(`${prefix}grant:${grantId}`)).toBe(0);
  });

  it('keeps the grant index alive as long as its longest-lived token', async () => {
    const grantId = id();
    await adapter('AccessToken').upsert(id(), { kind: 'AccessToken', grantId }, 30);
    await adapter('RefreshToken').upsert(id(), { kind: 'RefreshToken', grantId }, 300);
    await adapter('AccessToken').upsert(id(), { kind: 'AccessToken', grantId }, 30);
    const ttl = await redis.ttl(`${prefix}grant:${grantId}`);
    expect(ttl).toBeGreaterThan(290);
  });

  it('publishes the hashes of revoked access tokens, never the tokens', async () => {
    const sub = new Redis(SERVICES.redisUrl);
    const messages: string[] = [];
    try {
      await sub.subscribe(revocationChannel(prefix));
      sub.on('message', (_channel: string, message: string) => messages.push(message));
      const grantId = id();
      const aid = id();
      const lone = id();
      await adapter('AccessToken').upsert(aid, { kind: 'AccessToken', grantId }, 60);
      await adapter('AccessToken').upsert(lone, { kind: 'AccessToken', grantId: id() }, 60);
      await adapter('AccessToken').revokeByGrantId(grantId);
      await adapter('AccessToken').destroy(lone);
      for (let i = 0; i < 50 && messages.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      const hashes = messages.flatMap((m) => (JSON.parse(m) as { tokens: string[] }).tokens);
      expect(hashes).toEqual([tokenHash(aid), tokenHash(lone)]);
      expect(messages.join()).not.toContain(aid);
    } finally {
      await sub.quit();
    }
  });
});
