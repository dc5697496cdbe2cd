/**
 * The one place both services create their Redis clients, for any of the three shapes config-fields.ts
 * `redisFields` describes: one node (REDIS_URL), a Redis Cluster (REDIS_CLUSTER_NODES) or a primary
 * with replicas behind Sentinel (REDIS_SENTINELS + REDIS_SENTINEL_NAME).
 *
 * Outages fail fast in every shape: command clients never queue while disconnected
 * (`enableOfflineQueue: false`, one retry per request), so a request that needs Redis while a node
 * or the primary is gone is answered 503 `temporarily_unavailable` at once, and the client keeps
 * reconnecting (a cluster refreshes its slot map; Sentinel is asked for the new primary), so service
 * resumes by itself. A cluster client reads and writes on primaries only (`scaleReads: 'master'`):
 * a replica may lag, and a token just issued must be found by the next request.
 *
 * Reconnection is prompt in every shape: a connection attempt gives up after 3 s and the next one
 * starts within 1 s. ioredis's defaults (10 s, growing to 2 s) kept a service unready for half a
 * minute after a Redis container came back on a new address, since the first attempts went nowhere
 * until they timed out.
 *
 * Subscribers (the revocation feed) do queue: a SUBSCRIBE must survive reconnection.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { redactUrl } from './startup-errors.js';

/** A command client: one node (or Sentinel's current primary), or a whole cluster. */
export type RedisClient = Redis | Cluster;

/** One address. */
export interface HostPort {
  host: string;
  port: number;
}

/** Where Redis is, as the config schemas parse it (config-fields.ts `redisFields`). */
export interface RedisSettings {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: HostPort[] | undefined;
  REDIS_SENTINELS?: HostPort[] | undefined;
  REDIS_SENTINEL_NAME?: string | undefined;
}

/** What a client is for. */
export type RedisUse = 'commands' | 'subscriber';

const list = (nodes: HostPort[]) => nodes.map((n) => `${n.host}:${n.port}`).join(',');

/**
 * A start-up failure's opening: the setting in use and where it points, password redacted, e.g.
 * `REDIS_URL: cannot connect to redis://:***@host:6379` or `REDIS_CLUSTER_NODES: cannot connect to a:1,b:2`.
 */
export function redisProblem(settings: RedisSettings, what: string): string {
  if (settings.REDIS_CLUSTER_NODES)
    return `REDIS_CLUSTER_NODES: cannot ${what} ${list(settings.REDIS_CLUSTER_NODES)}`;
  if (settings.REDIS_SENTINELS)
    return `REDIS_SENTINELS: cannot ${what} ${settings.REDIS_SENTINEL_NAME} via ${list(settings.REDIS_SENTINELS)}`;
  return `REDIS_URL: cannot ${what} ${redactUrl(settings.REDIS_URL)}`;
}

/** User, password and TLS of REDIS_URL, which a cluster's or Sentinel's nodes share. */
function credentials(url: string): RedisOptions {
  const u = new URL(url);
  return {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

const FAIL_FAST: RedisOptions = { enableOfflineQueue: false, maxRetriesPerRequest: 1 };
const KEEP_TRYING: RedisOptions = { maxRetriesPerRequest: null };
/** How long one connection attempt may take, and the delay before the next (milliseconds). */
const RECONNECT: Pick<RedisOptions, 'connectTimeout' | 'retryStrategy'> = {
  connectTimeout: 3000,
  retryStrategy: (times: number) => Math.min(100 * times, 1000),
};

/** A client for `use`, not yet connected (`lazyConnect`: call `connect()`, which rejects on failure). */
export function createRedisClient(settings: RedisSettings, use: RedisUse): RedisClient {
  const commands = use === 'commands';
  const behaviour: RedisOptions = {
    lazyConnect: true,
    ...RECONNECT,
    ...(commands ? { enableAutoPipelining: true, ...FAIL_FAST } : KEEP_TRYING),
  };
  if (settings.REDIS_CLUSTER_NODES) {
    const options: ClusterOptions = {
      lazyConnect: true,
      scaleReads: 'master',
      enableOfflineQueue: !commands,
      enableAutoPipelining: commands,
      // A failover takes the cluster a few seconds (cluster-node-timeout, then an election): keep
      // asking for the slot map meanwhile, never give up.
      clusterRetryStrategy: (times) => Math.min(100 * times, 1000),
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      slotsRefreshTimeout: 2000,
      redisOptions: {
        ...credentials(settings.REDIS_URL),
        connectTimeout: RECONNECT.connectTimeout,
        maxRetriesPerRequest: commands ? 1 : null,
      },
    };
    return new Cluster(settings.REDIS_CLUSTER_NODES, options);
  }
  if (settings.REDIS_SENTINELS) {
    const u = new URL(settings.REDIS_URL);
    return new Redis({
      ...credentials(settings.REDIS_URL),
      ...behaviour,
      sentinels: settings.REDIS_SENTINELS,
      name: settings.REDIS_SENTINEL_NAME!,
      db: Number(u.pathname.slice(1) || 0),
      failoverDetector: true,
    });
  }
  return new Redis(settings.REDIS_URL, behaviour);
}

/**
 * Whether Redis serves every key now, for readiness and the metrics' probe; throws what is wrong.
 * One node (or Sentinel's current primary) answers PING. A cluster is asked for its own state, from
 * whichever node the client picks (`CLUSTER INFO`, `cluster_state:ok`): a PING there would answer
 * from one node while a slot has no primary, and then (cluster-require-full-coverage, the default)
 * the cluster refuses every key command. A primary that has just died counts once the cluster marks
 * it failed (cluster-node-timeout); its slots' requests get 503 meanwhile all the same.
 */
export async function checkRedis(redis: RedisClient): Promise<void> {
  if (!(redis instanceof Cluster)) {
    await redis.ping();
    return;
  }
  const info = String(await redis.cluster('INFO'));
  const state = /^cluster_state:(\w+)/m.exec(info)?.[1] ?? 'unknown';
  if (state !== 'ok') throw new Error(`cluster_state:${state}`);
}

/**
 * Closes a client: QUIT when it is connected (pending replies arrive first), else drops it at once
 * (a client still trying to reach a cluster would otherwise wait for it). Behind Sentinel, the
 * failover detector's subscriptions to the Sentinels survive QUIT (ioredis issue #1362) and kept a
 * stopping process alive until SIGKILL: `disconnect()` after it ends them.
 */
export async function closeRedis(redis: RedisClient): Promise<void> {
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  await redis.quit().catch(() => undefined);
  redis.disconnect();
}

/** The SCAN pattern of every key starting with `literal` (its glob characters escaped). */
export function keysStartingWith(literal: string): string {
  return `${literal.replace(/[*?[\]\\]/g, '\\$&')}*`;
}

/**
 * What {@link scanPage} takes and gives as a cursor: SCAN's own number on one node; on a cluster the
 * primary being walked too, `<index>:<its cursor>` (a SCAN cursor is one node's, and a cluster's
 * SCAN only walks the node it is sent to).
 */
export const SCAN_CURSOR = /^(?:\d{1,4}:)?\d{1,20}$/;

/**
 * One step of a resumable walk over every key starting with `keyPrefix`, on one node or on every
 * primary of a cluster in turn (sorted by address): `[next cursor, keys]`, from `cursor` ('0' starts;
 * a next cursor of '0' means the walk is over). SCAN's guarantees hold: every key present for the
 * whole walk is returned at least once, some may be returned twice; a failover during the walk may
 * skip or repeat a primary's keys.
 */
export async function scanPage(
  redis: RedisClient,
  keyPrefix: string,
  cursor: string,
  count = 500,
): Promise<[string, string[]]> {
  const match = keysStartingWith(keyPrefix);
  if (!(redis instanceof Cluster)) return redis.scan(cursor, 'MATCH', match, 'COUNT', count);
  const address = (n: Redis) => `${n.options.host}:${n.options.port}`;
  const primaries = redis.nodes('master').sort((a, b) => address(a).localeCompare(address(b)));
  const [at, nodeCursor] = cursor.includes(':') ? cursor.split(':') : ['0', cursor];
  const index = Number(at);
  const node = primaries[index];
  if (!node) return ['0', []];
  const [next, keys] = await node.scan(nodeCursor!, 'MATCH', match, 'COUNT', count);
  if (next !== '0') return [`${index}:${next}`, keys];
  return [index + 1 < primaries.length ? `${index + 1}:0` : '0', keys];
}

/** Every key starting with `keyPrefix`, in batches, walked with {@link scanPage}. */
export async function* scanKeys(
  redis: RedisClient,
  keyPrefix: string,
  count = 500,
): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, keys] = await scanPage(redis, keyPrefix, cursor, count);
    if (keys.length) yield keys;
    cursor = next;
  } while (cursor !== '0');
}

/** The values of `keys` (null where missing): one GET each, pipelined, as MGET cannot span slots. */
export function getMany(redis: RedisClient, keys: string[]): Promise<(string | null)[]> {
  return Promise.all(keys.map((k) => redis.get(k)));
}
