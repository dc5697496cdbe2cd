/**
 * When each scope of a grant was last used at the API, for Connected apps ("used" beside "granted",
 * and "Drop unused scopes"). The resource API says so in its introspection request (`used_scope`,
 * provider/scope-use.ts), at most once a minute per app, account and scope, off its hot path; the
 * time is one field of a hash per grant, in the grant's slot, expiring with the longest a grant can
 * live, so it needs no clean-up.
 */
import type { RedisClient } from '@school/shared';
import { scopeUsageKey } from './redis-keys.js';

/** Records that `scope` of `grantId` was used now; never awaited by the request that caused it. */
export async function recordScopeUse(
  redis: RedisClient,
  prefix: string,
  { grantId, scope, grantTtlSeconds }: { grantId: string; scope: string; grantTtlSeconds: number },
): Promise<void> {
  const key = scopeUsageKey(prefix, grantId);
  await redis
    .multi()
    .hset(key, scope, String(Math.floor(Date.now() / 1000)))
    .expire(key, grantTtlSeconds)
    .exec();
}

/** Scope → last use (Unix seconds) of each of `grantIds`, in the same order. */
export async function scopesLastUsed(
  redis: RedisClient,
  prefix: string,
  grantIds: readonly string[],
): Promise<Array<Record<string, number>>> {
  // One HGETALL per grant, pipelined: each grant's hash is in its grant's slot.
  const read = await Promise.all(grantIds.map((id) => redis.hgetall(scopeUsageKey(prefix, id))));
  return read.map((fields) =>
    Object.fromEntries(Object.entries(fields).map(([scope, at]) => [scope, Number(at)])),
  );
}
