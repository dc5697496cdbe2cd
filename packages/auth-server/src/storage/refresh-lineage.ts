/**
 * What the refresh-token reuse window (provider/refresh-extension/) keeps about a grant, in the grant's
 * hash slot (redis-keys.ts):
 * - `refreshCurrent`: the grant's current refresh token id, the one it replaced, and the address its
 *   last rotation came from, rewritten on every rotation and expiring one window after it (a rotated
 *   token is never answered later than that, so nothing older is needed);
 * - `grantReuse`: how many rotated tokens of the grant were answered within the window, and when the
 *   last was, for Connected apps ("used from several places"); it expires with the grant's longest life.
 *
 * The refresh token id is the token itself (oidc-provider's opaque format), as it is in the token's
 * own key: this record adds no secret Redis did not already hold.
 */
import type { RedisClient } from '@school/shared';
import { grantReuseKey, refreshCurrentKey } from './redis-keys.js';

/** A grant's refresh token as of its last rotation. */
export interface RefreshLineage {
  /** The current refresh token's id. */
  token: string;
  /** The address key (client-address.ts) of the request that rotated to it. */
  address: string;
  /** That request's address as Koa reported it (matched against a hosted client's egress ranges). */
  ip?: string;
  /** The refresh token id that rotation replaced: the only one a hosted client's race may present. */
  previous?: string;
}

/** Records a rotation to `lineage.token`, kept for `windowSeconds`. */
export async function recordRotation(
  redis: RedisClient,
  prefix: string,
  grantId: string,
  lineage: RefreshLineage,
  windowSeconds: number,
): Promise<void> {
  await redis.set(refreshCurrentKey(prefix, grantId), JSON.stringify(lineage), 'EX', windowSeconds + 1);
}

/** The grant's refresh token as of its last rotation within the window, if any. */
export async function currentRefresh(
  redis: RedisClient,
  prefix: string,
  grantId: string,
): Promise<RefreshLineage | undefined> {
  const json = await redis.get(refreshCurrentKey(prefix, grantId));
  return json ? (JSON.parse(json) as RefreshLineage) : undefined;
}

/** Counts one rotated token of `grantId` answered within the window. */
export async function countReuse(
  redis: RedisClient,
  prefix: string,
  grantId: string,
  ttlSeconds: number,
): Promise<void> {
  const key = grantReuseKey(prefix, grantId);
  await Promise.all([
    redis.hincrby(key, 'count', 1),
    redis.hset(key, 'last', String(Math.floor(Date.now() / 1000))),
    redis.expire(key, ttlSeconds),
  ]);
}

/** How often each grant's rotated tokens were answered within the window, and the last time. */
export interface GrantReuse {
  count: number;
  /** Unix seconds. */
  last: number;
}

/** The reuse of each of `grantIds`, in the same order; undefined where there was none. */
export async function grantsReused(
  redis: RedisClient,
  prefix: string,
  grantIds: readonly string[],
): Promise<Array<GrantReuse | undefined>> {
  // One HMGET per grant, auto-pipelined: each grant's record is in its grant's slot.
  const found = await Promise.all(
    grantIds.map((id) => redis.hmget(grantReuseKey(prefix, id), 'count', 'last')),
  );
  return found.map(([count, last]) =>
    count && last ? { count: Number(count), last: Number(last) } : undefined,
  );
}
