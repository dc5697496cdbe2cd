/**
 * When a client last used its tokens, for the lifecycle sweep (client-sweep.ts).
 *
 * "Used" means an access or refresh token of the client was issued (a code exchanged, a refresh) or
 * read (introspection by a resource server, userinfo, revocation, a refresh): the Redis adapter
 * reports each to {@link UsageRecorder}. The time is kept in one Redis hash, `<prefix>clientUsedAt`
 * (client id → Unix seconds), written at most once per {@link usageResolutionSeconds} per client by
 * each process: the check is a cache lookup on the hot paths (introspection runs for every cache miss of
 * every resource server), and the write, when due, is one HSET auto-pipelined with the request's own
 * commands and never awaited by it. A failed write only makes the next use try again.
 *
 * Why not Redis key TTLs (let the client key expire unless touched): an expiring client key would
 * vanish before its grants and tokens were ended, the order this service promises the other way round
 * (client-removal.ts), and would need a write on every use to push the expiry forward.
 *
 * The cost of the throttle: the stored time may be up to one resolution older than the real last use,
 * so the sweep adds one resolution to the idle period before it removes a client, never earlier.
 */
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { usageKey } from './redis-keys.js';

/**
 * How stale a stored last-use time may be, seconds: an hour, or a tenth of the idle period when that
 * is shorter (so short idle periods in tests stay meaningful), at least one second.
 */
export function usageResolutionSeconds(idleSeconds: number): number {
  return Math.max(1, Math.min(3600, Math.floor(idleSeconds / 10)));
}

/** Records that a client used a token; cheap enough for every request. */
export type UsageRecorder = (clientId: string) => void;

/** Options for {@link createUsageRecorder}. */
export interface UsageRecorderOptions {
  prefix: string;
  /** Write a client's time at most this often, seconds ({@link usageResolutionSeconds}). */
  resolutionSeconds: number;
  /** Clients whose last write this process remembers (the oldest is forgotten first). Default 10000. */
  maxTracked?: number;
}

/** A {@link UsageRecorder} writing to Redis, at most once per resolution per client and process. */
export function createUsageRecorder(redis: Redis, options: UsageRecorderOptions): UsageRecorder {
  const key = usageKey(options.prefix);
  const everyMs = options.resolutionSeconds * 1000;
  /** The clients this process wrote a time for within the last resolution. */
  const written = new LRUCache<string, true>({ max: options.maxTracked ?? 10_000, ttl: everyMs });
  return (clientId) => {
    if (written.has(clientId)) return;
    written.set(clientId, true);
    const seconds = String(Math.floor(Date.now() / 1000));
    redis.hset(key, clientId, seconds).catch(() => written.delete(clientId));
  };
}
