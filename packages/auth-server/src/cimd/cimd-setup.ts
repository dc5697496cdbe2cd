/**
 * The metadata-document resolver as the server and the operator command run it, built from the
 * configuration: the safe fetcher, the first-fetch budgets counted in Redis (so every instance shares
 * them), the cache bounds, and a log line for every fetch (a warning when it gave no fresh document;
 * one that names the dropped values when the document listed some this server does not use).
 */
import { readFileSync } from 'node:fs';
import type { RedisClient } from '@school/shared';
import { Provider, type ClientMetadata } from 'oidc-provider';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { addressKey } from '../client-address.js';
import type { AuthConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { createDocumentFetcher, type FetchedDocument } from './document-fetcher.js';
import { CimdResolver, hostShare, type CimdCachePolicy } from './cimd-resolver.js';
import { TooManyRequests } from '../provider/too-many-requests.js';

/** How long the operator's view keeps a document that failed and is not held: ten minutes. */
const FAILURE_ENTRY_SECONDS = 600;
/** The least time between two fetches of a held document whose host is failing. */
const RETRY_SECONDS = 30;

/** The fetcher of a deployment's metadata documents: the server's and `school-auth clients check`'s. */
export function createCimdFetcher(config: AuthConfig): (url: string) => Promise<FetchedDocument> {
  return createDocumentFetcher({
    timeoutMs: config.CIMD_FETCH_TIMEOUT_MS,
    allowLoopback: config.CIMD_ALLOW_LOOPBACK,
    extraCa: config.CIMD_EXTRA_CA_FILE ? readFileSync(config.CIMD_EXTRA_CA_FILE, 'utf8') : undefined,
  });
}

/** The cache bounds of a deployment. */
export function cimdCachePolicy(config: AuthConfig): CimdCachePolicy {
  return {
    minSeconds: config.CIMD_CACHE_MIN_SECONDS,
    maxSeconds: config.CIMD_CACHE_MAX_SECONDS,
    staleSeconds: config.CIMD_STALE_SECONDS,
    failureSeconds: FAILURE_ENTRY_SECONDS,
    retrySeconds: RETRY_SECONDS,
  };
}

/** Builds the {@link CimdResolver} of a deployment. */
export function createCimdResolver(config: AuthConfig, redis: RedisClient, logger: Logger): CimdResolver {
  const perMinute = (name: string, points: number) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${config.REDIS_KEY_PREFIX}rl:${name}`,
      points,
      duration: 60,
    });
  const budgets = {
    perAddress: perMinute('cimd-addr', config.CIMD_FIRST_FETCHES_PER_MINUTE_PER_ADDRESS),
    perAddressOnHost: perMinute('cimd-addr-host', hostShare(config.CIMD_FETCHES_PER_MINUTE_PER_HOST)),
    perHost: perMinute('cimd-host', config.CIMD_FETCHES_PER_MINUTE_PER_HOST),
  };
  const fetchDocument = createCimdFetcher(config);
  const policy = cimdCachePolicy(config);
  return new CimdResolver(
    redis,
    config.REDIS_KEY_PREFIX,
    fetchDocument,
    policy,
    budgets,
    (outcome) => {
      if (outcome.status !== 'fresh') logger.warn(outcome, 'client metadata document not fetched');
      else if (outcome.dropped?.length)
        logger.info(outcome, 'client metadata document fetched; values it lists were dropped');
      else logger.info(outcome, 'client metadata document fetched');
    },
    config.DEVICE_PAIRING,
  );
}

/**
 * The adapter's resolution of a metadata-document client id: the address of the request being
 * answered (oidc-provider's `Provider.ctx`) pays for a first fetch, and a refusal by a budget carries
 * `Retry-After`. Outside a request (the server's own lookups) only the host's budget applies.
 */
export function resolveForCurrentRequest(cimd: CimdResolver): (clientId: string) => Promise<ClientMetadata> {
  return async (clientId) => {
    const ctx = Provider.ctx as { ip?: string; set?: (name: string, value: string) => void } | undefined;
    try {
      return await cimd.resolve(clientId, ctx?.ip === undefined ? undefined : addressKey(ctx.ip));
    } catch (err) {
      if (err instanceof TooManyRequests) ctx?.set?.('Retry-After', String(err.retryAfterSeconds));
      throw err;
    }
  };
}
