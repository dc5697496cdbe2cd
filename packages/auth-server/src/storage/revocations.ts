/**
 * Every revocation is published on the revocation feed (`@school/shared` revocation-feed.ts) as the
 * SHA-256 hashes of the revoked access tokens, so resource servers that cache introspection results
 * can evict them at once.
 */
import { revocationChannel, revocationMessage, tokenHash } from '@school/shared';
import type { Redis } from 'ioredis';
import { modelPrefix } from './redis-keys.js';

/**
 * Publishes the revoked access tokens among `keys` (storage keys of any models) on the revocation
 * channel, as SHA-256 hashes, so resource servers drop their cached introspection answers at once.
 */
export async function publishRevoked(redis: Redis, prefix: string, keys: string[]): Promise<void> {
  const marker = modelPrefix(prefix, 'AccessToken');
  const hashes = keys.filter((k) => k.startsWith(marker)).map((k) => tokenHash(k.slice(marker.length)));
  if (hashes.length) await redis.publish(revocationChannel(prefix), revocationMessage(hashes));
}
