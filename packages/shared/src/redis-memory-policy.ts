/**
 * Redis holds every token, grant, session, client and rate-limit counter, so it must refuse writes
 * when it is full (`maxmemory-policy noeviction`: the services then answer 503) rather than evict:
 * an evicted grant logs a user out, an evicted refresh token looks like theft, an evicted counter
 * lets a flood through. Redis's own default is `noeviction`, but managed Redis services often default
 * to an LRU policy, so the services read the policy at start and warn when it evicts.
 */
import type { RedisClient } from './redis-client.js';

/** What the services want of a Redis that holds their state. */
export const REDIS_MEMORY_POLICY = 'noeviction';

/** Why Redis's memory policy is unsafe for the services' state, or undefined (also when unreadable). */
export async function redisEvictionProblem(redis: RedisClient): Promise<string | undefined> {
  let info: string;
  try {
    info = await redis.info('memory');
  } catch {
    return undefined; // INFO refused (some managed services): nothing to tell
  }
  const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  if (!policy || policy === REDIS_MEMORY_POLICY) return undefined;
  return `Redis evicts keys when full (maxmemory-policy ${policy}): tokens, grants, sessions and rate-limit counters can vanish; set maxmemory-policy ${REDIS_MEMORY_POLICY}`;
}
