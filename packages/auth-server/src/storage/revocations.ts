/**
 * Every revocation is published on `<prefix>revocations` as the SHA-256 hashes of the revoked access
 * tokens, so resource servers that cache introspection results can evict them at once.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { modelPrefix, revocationChannel } from './redis-keys.js';

/** SHA-256 hex of a token value: the only form in which tokens leave this service for caches and logs. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Publishes the revoked access tokens among `keys` (storage keys of any models) on the revocation
 * channel, as SHA-256 hashes, so resource servers drop their cached introspection answers at once.
 */
export async function publishRevoked(redis: Redis, prefix: string, keys: string[]): Promise<void> {
  const marker = modelPrefix(prefix, 'AccessToken');
  const hashes = keys.filter((k) => k.startsWith(marker)).map((k) => tokenHash(k.slice(marker.length)));
  if (hashes.length) await redis.publish(revocationChannel(prefix), JSON.stringify({ tokens: hashes }));
}
