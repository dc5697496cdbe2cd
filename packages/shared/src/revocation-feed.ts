/**
 * The revocation feed between the services: the auth server publishes on `<prefix>revocations` a
 * JSON message `{"tokens": ["<sha256 hex>", ...]}` whenever access tokens end before their time; the
 * resource API drops them from its introspection cache. Tokens are only ever named by their SHA-256
 * hex outside the auth server's storage, in caches, messages and logs alike.
 */
import { hash } from 'node:crypto';
import { z } from 'zod';

/** The channel revocations are published on, for a Redis key prefix. */
export function revocationChannel(prefix: string): string {
  return `${prefix}revocations`;
}

/**
 * SHA-256 hex of a token value. The one-shot `crypto.hash` (Node 21.7+), not a `Hash` object: the
 * resource API hashes every request's token for its cache, and the object's set-up was most of the
 * cost (0.32 against 0.68 µs a token here).
 */
export function tokenHash(token: string): string {
  return hash('sha256', token, 'hex');
}

/** The message announcing that the tokens with these hashes ended, as the subscriber checks it. */
export const revocationMessageSchema = z.object({ tokens: z.array(z.string().regex(/^[0-9a-f]{64}$/)) });

/** The message to publish for these token hashes. */
export function revocationMessage(hashes: readonly string[]): string {
  return JSON.stringify({ tokens: hashes });
}
