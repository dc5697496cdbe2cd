/**
 * When each grant's tokens were last used, for Connected apps ("last used"). The same uses as
 * client-usage.ts (an access or refresh token issued or read), per grant: one key per grant, in the
 * grant's hash slot (`grantUsedAt:{tag}<rest>`, redis-keys.ts), expiring with the longest a grant can live, so it needs no
 * clean-up.
 *
 * Off the hot path: each process writes a grant's time at most once per {@link GRANT_USAGE_RESOLUTION_SECONDS},
 * remembered in an LRU cache (a lookup per token read, nothing more), and the write, when due, is one
 * SET auto-pipelined with the request's own commands and never awaited by it. A failed write only
 * makes the next use try again. The cost: "last used" may be up to a minute old.
 */
import { getMany, type RedisClient } from '@school/shared';
import { LRUCache } from 'lru-cache';
import { grantUsageKey } from './redis-keys.js';

/** How stale a grant's stored last-use time may be, seconds. */
export const GRANT_USAGE_RESOLUTION_SECONDS = 60;

/** Records that a grant's token was used; cheap enough for every request. */
export type GrantUsageRecorder = (grantId: string) => void;

/** A {@link GrantUsageRecorder} writing to Redis, at most once a minute per grant and process. */
export function createGrantUsageRecorder(
  redis: RedisClient,
  {
    prefix,
    grantTtlSeconds,
    maxTracked = 50_000,
  }: { prefix: string; grantTtlSeconds: number; maxTracked?: number },
): GrantUsageRecorder {
  const written = new LRUCache<string, true>({
    max: maxTracked,
    ttl: GRANT_USAGE_RESOLUTION_SECONDS * 1000,
  });
  return (grantId) => {
    if (written.has(grantId)) return;
    written.set(grantId, true);
    const seconds = String(Math.floor(Date.now() / 1000));
    redis
      .set(grantUsageKey(prefix, grantId), seconds, 'EX', grantTtlSeconds)
      .catch(() => written.delete(grantId));
  };
}

/** The last-use times of `grantIds` (Unix seconds), in the same order; undefined where never used. */
export async function grantsLastUsed(
  redis: RedisClient,
  prefix: string,
  grantIds: readonly string[],
): Promise<Array<number | undefined>> {
  if (!grantIds.length) return [];
  // One GET per grant, pipelined: each grant's time is in its grant's slot (MGET cannot span slots).
  const times = await getMany(
    redis,
    grantIds.map((id) => grantUsageKey(prefix, id)),
  );
  return times.map((t) => (t ? Number(t) : undefined));
}
