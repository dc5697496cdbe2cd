/**
 * The metadata-document resolver as the server and the operator command run it, built from the
 * configuration: the safe fetcher with its per-host budget counted in Redis (so every instance
 * shares it), the cache bounds, and a log line for every fetch that did not give a fresh document.
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { AuthConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { createDocumentFetcher } from './document-fetcher.js';
import { CimdResolver } from './cimd-resolver.js';

/** Builds the {@link CimdResolver} of a deployment. */
export function createCimdResolver(config: AuthConfig, redis: Redis, logger: Logger): CimdResolver {
  const fetchDocument = createDocumentFetcher({
    timeoutMs: config.CIMD_FETCH_TIMEOUT_MS,
    limiter: new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${config.REDIS_KEY_PREFIX}rl:cimd-host`,
      points: config.CIMD_FETCHES_PER_MINUTE_PER_HOST,
      duration: 60,
    }),
    allowLoopback: config.CIMD_ALLOW_LOOPBACK,
    extraCa: config.CIMD_EXTRA_CA_FILE ? readFileSync(config.CIMD_EXTRA_CA_FILE, 'utf8') : undefined,
  });
  const policy = {
    minSeconds: config.CIMD_CACHE_MIN_SECONDS,
    maxSeconds: config.CIMD_CACHE_MAX_SECONDS,
    staleSeconds: config.CIMD_STALE_SECONDS,
  };
  return new CimdResolver(redis, config.REDIS_KEY_PREFIX, fetchDocument, policy, (outcome) => {
    if (outcome.status === 'fresh') logger.info(outcome, 'client metadata document fetched');
    else logger.warn(outcome, 'client metadata document not fetched');
  });
}
