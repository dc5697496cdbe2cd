/**
 * Listens for revocations on the auth server's Redis channel (a dedicated subscriber connection) and
 * evicts the named tokens from the verifier's cache, so every API instance refuses a revoked token on
 * its next use. If the subscription ever drops, messages may have been missed while it was down, so
 * the whole positive cache is cleared when it comes back (fail safe: the next requests introspect).
 */
import { revocationChannel, revocationMessageSchema } from '@school/shared';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { TokenVerifier } from './token-verifier.js';

/** A running subscription. */
export interface RevocationListener {
  redis: Redis;
  close(): Promise<void>;
}

/** Subscribes (resolves once the subscription is in place) and wires messages to `verifier.evict`. */
export async function listenForRevocations(
  redisUrl: string,
  prefix: string,
  verifier: TokenVerifier,
  logger: Logger,
): Promise<RevocationListener> {
  const channel = revocationChannel(prefix);
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: null });
  let ready = false;
  // ioredis rejects a failed connect with "Connection is closed."; the reason is in its last error.
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => {
    lastError = err;
    logger.warn({ err: err.message }, 'revocation subscriber error');
  });
  redis.on('close', () => {
    ready = false;
  });
  redis.on('ready', () => {
    if (!ready && subscribed) {
      verifier.clear();
      logger.warn('revocation feed reconnected; introspection cache cleared');
    }
    ready = true;
  });
  redis.on('message', (ch: string, message: string) => {
    if (ch !== channel) return;
    let parsed;
    try {
      parsed = revocationMessageSchema.safeParse(JSON.parse(message));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) {
      logger.warn({ channel }, 'ignored a malformed revocation message');
      return;
    }
    verifier.evict(parsed.data.tokens);
    logger.debug({ count: parsed.data.tokens.length }, 'revoked tokens evicted');
  });
  let subscribed = false;
  try {
    await redis.connect();
    await redis.subscribe(channel);
  } catch (err) {
    redis.disconnect();
    throw lastError ?? err;
  }
  subscribed = true;
  ready = true;
  return {
    redis,
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
