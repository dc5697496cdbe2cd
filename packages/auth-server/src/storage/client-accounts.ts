/**
 * How many accounts granted each client, for All clients: the distinct `accountId`s of the grants in
 * the client's grant set (`clientGrants:<id>`, redis-keys.ts), read for the clients of one page only.
 * One SMEMBERS per client and one GET per grant (grants are in slots of their own, so no MGET), in
 * chunks of {@link CHUNK}, auto-pipelined; grants since gone
 * (expired, revoked) read as nothing and are not counted.
 */
import { getMany, type RedisClient } from '@school/shared';
import { clientGrantsKey, modelKey } from './redis-keys.js';

/** Grant payloads read per pipelined batch. */
const CHUNK = 500;

/** The number of distinct accounts holding a grant of each of `clientIds`, in order. */
export async function countGrantingAccounts(
  redis: RedisClient,
  prefix: string,
  clientIds: readonly string[],
): Promise<number[]> {
  const grantIds = await Promise.all(clientIds.map((id) => redis.smembers(clientGrantsKey(prefix, id))));
  return Promise.all(
    grantIds.map(async (ids) => {
      const accounts = new Set<string>();
      for (let i = 0; i < ids.length; i += CHUNK) {
        const keys = ids.slice(i, i + CHUNK).map((g) => modelKey(prefix, 'Grant', g));
        for (const json of await getMany(redis, keys)) {
          const accountId = json ? (JSON.parse(json) as { accountId?: string }).accountId : undefined;
          if (accountId) accounts.add(accountId);
        }
      }
      return accounts.size;
    }),
  );
}
