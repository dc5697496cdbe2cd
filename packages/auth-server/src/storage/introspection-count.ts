/**
 * The introspection limit's own fixed window, and the introspection shortcut's one Redis round trip
 * (http/direct-introspection.ts).
 *
 * The introspection limit per client and address is counted here, by this server's own key layout
 * (redis-keys.ts `introspectionCountKey`) and script (redis-scripts.ts: a fixed window opened with
 * SET NX EX, INCR, PTTL), for both paths an introspection can take: the limit's step
 * (http/rate-limit.ts) counts alone, and the shortcut counts and reads in one call. No library's
 * storage format is assumed, so an upgrade of rate-limiter-flexible cannot split the bucket in two.
 *
 * Introspection is the auth server's hottest call (every cache miss of every resource server). Done
 * naively it costs three Redis commands in sequence: the count, the access token, its grant. Here one
 * script does all three on one Redis node (or Sentinel's primary): it counts the request, then reads
 * the presented access token and, by the grant id in it, the grant (same slot, redis-keys.ts). On a
 * cluster the counter and the token live in different hash slots, so there the count and the read
 * are two scripts sent in the same tick, to both nodes at once. One script rather than two
 * auto-pipelined ones took what the Redis adapter adds to an introspection over the memory adapter
 * from about 46 µs to 9–27 µs (bench/PERFORMANCE.md, AS2). The step that asks decides on the count,
 * and hands the read to oidc-provider's models for the calls that need it (request-reads.ts); nothing
 * is reused across requests, so a revocation is seen by the very next request.
 */
import type { RedisClient } from '@school/shared';
import { Cluster } from 'ioredis';
import type { FoundWithGrant } from './request-reads.js';
import { introspectionCountKey, modelKey, modelPrefix } from './redis-keys.js';
import { withScripts, type CountAndFindReply } from './redis-scripts.js';

/** A fixed-window count as the rate limiter needs it. */
export interface Count {
  consumed: number;
  msBeforeNext: number;
}

/** One request's count, and the read of the token it presents under its storage key. */
export interface CountAndRead {
  count: Promise<Count>;
  /** Absent when this count reads nothing (the benchmark's reference server). */
  read?: { key: string; found: Promise<FoundWithGrant | null> };
}

/**
 * Counts one request in `bucket` (a window of `seconds`) and, given `token`, reads that access token
 * in the same round trip.
 */
export type IntrospectionCount = (bucket: string, seconds: number, token?: string) => CountAndRead;

/**
 * The {@link IntrospectionCount} for storage under `prefix`. `countOnly` never reads (the limit's
 * step, and the benchmark's reference server, whose tokens are not in Redis: it then counts exactly as
 * this server does, so the two differ in storage only).
 */
export function createIntrospectionCount(
  redis: RedisClient,
  options: { prefix: string; countOnly?: boolean },
): IntrospectionCount {
  const r = withScripts(redis);
  const grantPrefix = modelPrefix(options.prefix, 'Grant');
  const oneNode = !(redis instanceof Cluster);
  return (bucket, seconds, token) => {
    const counterKey = introspectionCountKey(options.prefix, bucket);
    if (options.countOnly || token === undefined)
      return { count: r.oidcCount(counterKey, seconds).then(countOf) };
    const key = modelKey(options.prefix, 'AccessToken', token);
    if (oneNode) {
      const reply = r.oidcCountAndFind(counterKey, key, seconds, grantPrefix);
      return { count: reply.then(countOf), read: { key, found: reply.then(foundOf) } };
    }
    const count = r.oidcCount(counterKey, seconds).then(countOf);
    return { count, read: { key, found: r.oidcFindWithGrant(key, '0', grantPrefix) } };
  };
}

const countOf = ([consumed, msBeforeNext]: [number, number, ...unknown[]]): Count => ({
  consumed,
  msBeforeNext,
});

/** The token read of a `oidcCountAndFind` reply, as `oidcFindWithGrant` answers for an access token. */
const foundOf = ([, , payload, grantId, grant]: CountAndFindReply): FoundWithGrant | null =>
  payload ? [payload, null, grantId ?? null, grant ?? null] : null;
