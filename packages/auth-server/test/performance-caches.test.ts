/**
 * The performance changes behind scripts/bench (bench/PERFORMANCE.md), checked for the behaviour they
 * promise against the real Redis and MongoDB-protocol server:
 * - stored clients are reused in process for `clientCacheMs` (handed out deep-frozen), evicted at once
 *   by writes and deletes through the adapter, never cached when unknown, and the cache is bounded;
 * - the account store reuses an account read only as old as the caller allows (the token endpoint),
 *   reads MongoDB otherwise, and forgets an account it updates;
 * - the audit log stores events in batches, within `batchMs`, and `query`/`close` store what is
 *   pending first.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import mongoose, { type Connection } from 'mongoose';
import { AccountStore } from '../src/accounts/account-store.js';
import { AuditLog } from '../src/audit/audit-log.js';
import { createLogger } from '../src/logger.js';
import { createRedisAdapter } from '../src/storage/redis-adapter.js';
import { SERVICES } from '../../../test-support/auth-server.js';

const prefix = `perftest:${randomBytes(4).toString('hex')}:`;
const id = () => randomBytes(12).toString('base64url');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let redis: Redis;
let mongo: Connection;

beforeAll(async () => {
  redis = new Redis(SERVICES.redisUrl, { enableAutoPipelining: true });
  mongo = await mongoose
    .createConnection(`${SERVICES.mongoBase}/perftest_${randomBytes(4).toString('hex')}`)
    .asPromise();
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

describe('the client cache of the Redis adapter', () => {
  const stored = (cid: string, name: string) => ({ client_id: cid, client_name: name, redirect_uris: [] });
  /** Changes a client behind the adapter's back, as another instance or the operator command would. */
  const rewrite = (cid: string, name: string) =>
    redis.set(`${prefix}Client:${cid}`, JSON.stringify(stored(cid, name)));

  it('reuses a client it read for clientCacheMs, then reads it again', async () => {
    const clients = new (createRedisAdapter(redis, { prefix, clientCacheMs: 300 }))('Client');
    const cid = id();
    await clients.upsert(cid, stored(cid, 'first'));
    expect(await clients.find(cid)).toMatchObject({ client_name: 'first' });
    await rewrite(cid, 'second');
    expect(await clients.find(cid)).toMatchObject({ client_name: 'first' });
    await sleep(350);
    expect(await clients.find(cid)).toMatchObject({ client_name: 'second' });
  });

  it('forgets a client at once when it is deleted or stored again through the adapter', async () => {
    const Adapter = createRedisAdapter(redis, { prefix, clientCacheMs: 60_000 });
    const cid = id();
    await new Adapter('Client').upsert(cid, stored(cid, 'first'));
    expect(await new Adapter('Client').find(cid)).toMatchObject({ client_name: 'first' });
    // Another instance of the class (oidc-provider and the operator code each make their own).
    await new Adapter('Client').upsert(cid, stored(cid, 'second'));
    expect(await new Adapter('Client').find(cid)).toMatchObject({ client_name: 'second' });
    await new Adapter('Client').destroy(cid);
    expect(await new Adapter('Client').find(cid)).toBeUndefined();
  });

  it('never caches an unknown client id', async () => {
    const clients = new (createRedisAdapter(redis, { prefix, clientCacheMs: 60_000 }))('Client');
    const cid = id();
    expect(await clients.find(cid)).toBeUndefined();
    await rewrite(cid, 'registered meanwhile');
    expect(await clients.find(cid)).toMatchObject({ client_name: 'registered meanwhile' });
  });

  it('keeps at most clientCacheSize clients, dropping the oldest', async () => {
    const clients = new (createRedisAdapter(redis, { prefix, clientCacheMs: 60_000, clientCacheSize: 2 }))(
      'Client',
    );
    const [a, b, c] = [id(), id(), id()];
    for (const cid of [a, b, c]) await clients.upsert(cid, stored(cid, 'old'));
    for (const cid of [a, b, c]) await clients.find(cid);
    for (const cid of [a, b, c]) await rewrite(cid, 'new');
    expect(await clients.find(a)).toMatchObject({ client_name: 'new' }); // evicted: read again
    expect(await clients.find(c)).toMatchObject({ client_name: 'old' }); // still cached
  });

  it('hands out the cached client deep-frozen, so no caller can change it for the next one', async () => {
    const clients = new (createRedisAdapter(redis, { prefix, clientCacheMs: 60_000 }))('Client');
    const cid = id();
    await clients.upsert(cid, { ...stored(cid, 'kept'), redirect_uris: ['http://127.0.0.1/cb'] });
    const first = (await clients.find(cid)) as { client_name: string; redirect_uris: string[] };
    expect(() => {
      first.client_name = 'changed by a caller';
    }).toThrow(TypeError);
    expect(() => first.redirect_uris.push('http://127.0.0.1/other')).toThrow(TypeError);
    expect(await clients.find(cid)).toEqual({
      client_id: cid,
      client_name: 'kept',
      redirect_uris: ['http://127.0.0.1/cb'],
    });
  });

  it('does not cache other models', async () => {
    const sessions = new (createRedisAdapter(redis, { prefix, clientCacheMs: 60_000 }))('Session');
    const sid = id();
    await sessions.upsert(sid, { uid: id(), accountId: 'a' }, 60);
    expect(await sessions.find(sid)).toMatchObject({ accountId: 'a' });
    const payload = JSON.parse((await redis.get(`${prefix}Session:${sid}`))!) as Record<string, unknown>;
    await redis.set(`${prefix}Session:${sid}`, JSON.stringify({ ...payload, accountId: 'b' }));
    expect(await sessions.find(sid)).toMatchObject({ accountId: 'b' });
  });
});

describe('the account store', () => {
  let accounts: AccountStore;
  let accountId: string;
  const rename = (name: string) =>
    mongo.collection('accounts').updateOne({ _id: accountId as never }, { $set: { name } });
  const nameOf = async (maxAgeMs?: number) => {
    const account = await accounts.findAccount(accountId, maxAgeMs);
    return (await account!.claims('id_token', 'profile', {}, [])).name;
  };

  beforeAll(async () => {
    accounts = new AccountStore(mongo);
    await accounts.init();
    accountId = await accounts.upsert({
      email: 'cache@school.test',
      password: 'a long password 123',
      name: 'First',
    });
  });

  it('reads MongoDB unless the caller accepts an older read', async () => {
    expect(await nameOf(5_000)).toBe('First');
    await rename('Second');
    expect(await nameOf()).toBe('Second'); // no max age: always MongoDB
  });

  it('reuses a read as old as the caller allows, and no older', async () => {
    await rename('Third');
    expect(await nameOf()).toBe('Third');
    await rename('Fourth');
    expect(await nameOf(5_000)).toBe('Third');
    await sleep(250);
    expect(await nameOf(200)).toBe('Fourth');
  });

  it('forgets an account it updates itself', async () => {
    expect(await nameOf()).toBeDefined();
    await accounts.upsert({ email: 'cache@school.test', password: 'a long password 123', name: 'Fifth' });
    expect(await nameOf(60_000)).toBe('Fifth');
  });

  it('finds nothing for an unknown account, and does not keep that', async () => {
    expect(await accounts.findAccount('no-such-account', 60_000)).toBeUndefined();
  });
});

describe('the audit log’s batched storage', () => {
  const logger = createLogger('silent');
  const stored = (clientId: string) => mongo.collection('audit_events').countDocuments({ clientId });

  it('stores the events of a burst together, within batchMs', async () => {
    const audit = new AuditLog(mongo, logger, 1, { batchMs: 400 });
    await audit.init();
    const clientId = id();
    const done = Promise.all([1, 2, 3].map(() => audit.record('tokens_issued', { clientId })));
    await sleep(100);
    expect(await stored(clientId)).toBe(0); // still waiting for its batch
    await done; // resolves once stored
    expect(await stored(clientId)).toBe(3);
    await audit.close();
  });

  it('stores a batch at once when it reaches batchSize', async () => {
    const audit = new AuditLog(mongo, logger, 1, { batchMs: 60_000, batchSize: 2 });
    await audit.init();
    const clientId = id();
    await Promise.all([
      audit.record('tokens_issued', { clientId }),
      audit.record('tokens_issued', { clientId }),
    ]);
    expect(await stored(clientId)).toBe(2);
    await audit.close();
  });

  it('shows pending events to query, and stores them on close', async () => {
    const audit = new AuditLog(mongo, logger, 1, { batchMs: 60_000 });
    await audit.init();
    const clientId = id();
    void audit.record('client_registered', { clientId });
    expect(await audit.query({ clientId })).toHaveLength(1);
    void audit.record('tokens_issued', { clientId });
    await audit.close();
    expect(await stored(clientId)).toBe(2);
  });
});
