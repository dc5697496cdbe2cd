/**
 * The two conventions shared with the auth server's Redis adapter
 * (packages/auth-server/src/provider/redis-adapter.ts), reimplemented here so the API never loads the
 * auth server's code: tokens are only ever known by their SHA-256 hex, and revocations are published
 * on `<prefix>revocations` as `{"tokens": ["<sha256 hex>", ...]}`.
 */
import { createHash } from 'node:crypto';

/** The channel the auth server publishes revocations on, for a given key prefix. */
export function revocationChannel(prefix: string): string {
  return `${prefix}revocations`;
}

/** SHA-256 hex of a token value: the cache key and the form revocations name tokens in. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
