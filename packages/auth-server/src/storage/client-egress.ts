/**
 * The egress ranges an operator listed for hosted clients (clients/egress-ranges.ts), kept in one
 * Redis hash beside the other operator client settings (`clientEgress`, redis-keys.ts): client id →
 * its ranges, space separated. The reuse window reads a client's ranges on a refresh that needs them.
 */
import type { RedisClient } from '@school/shared';
import { clientEgressKey } from './redis-keys.js';

const split = (value: string | null | undefined) => (value ? value.split(' ').filter(Boolean) : []);

/** The ranges listed for `clientId` (none: an empty list). */
export async function clientEgressRanges(
  redis: RedisClient,
  prefix: string,
  clientId: string,
): Promise<string[]> {
  return split(await redis.hget(clientEgressKey(prefix), clientId));
}

/** Replaces the ranges listed for `clientId` (already checked, in network form). */
export async function storeEgressRanges(
  redis: RedisClient,
  prefix: string,
  clientId: string,
  ranges: readonly string[],
): Promise<void> {
  await redis.hset(clientEgressKey(prefix), clientId, ranges.join(' '));
}

/** Forgets the ranges of `clientId`; false when none were listed. */
export async function forgetEgressRanges(
  redis: RedisClient,
  prefix: string,
  clientId: string,
): Promise<boolean> {
  return (await redis.hdel(clientEgressKey(prefix), clientId)) === 1;
}

/** Every client with listed ranges, sorted by client id. */
export async function everyEgressRange(
  redis: RedisClient,
  prefix: string,
): Promise<{ client_id: string; egress_ranges: string[] }[]> {
  const all = await redis.hgetall(clientEgressKey(prefix));
  return Object.entries(all)
    .map(([client_id, value]) => ({ client_id, egress_ranges: split(value) }))
    .sort((a, b) => a.client_id.localeCompare(b.client_id));
}
