/**
 * Every revocation is published on the revocation feed (`@school/shared` revocation-feed.ts) as the
 * SHA-256 hashes of the revoked access tokens, so resource servers that cache introspection results
 * can evict them at once. Classic PUBLISH, which a Redis Cluster forwards to every node (redis-keys.ts
 * says why not sharded pub/sub).
 */
import { revocationChannel, revocationMessage, tokenHash } from '@school/shared';
import type { RedisClient } from '@school/shared';
import { idOfKey, modelPrefix } from './redis-keys.js';

/**
 * Publishes the revoked access tokens among `keys` (storage keys of any models) on the revocation
 * channel, as SHA-256 hashes, so resource servers drop their cached introspection answers at once.
 */
export async function publishRevoked(redis: RedisClient, prefix: string, keys: string[]): Promise<void> {
  const marker = modelPrefix(prefix, 'AccessToken');
  const hashes = keys
    .filter((k) => k.startsWith(marker))
    .map((k) => tokenHash(idOfKey(prefix, 'AccessToken', k)));
  if (hashes.length) await redis.publish(revocationChannel(prefix), revocationMessage(hashes));
}
