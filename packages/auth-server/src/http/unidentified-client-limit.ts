/**
 * The per-address limit of token, introspection and revocation requests whose client cannot be
 * identified: a `client_id` with no client behind it, or an authentication method the metadata does
 * not list (strict-client-authentication.ts). The rate limiter (rate-limit.ts) counts a request that
 * names a client per client and address, a bucket each new made-up `client_id` would open afresh; so
 * such a request is counted again, in the bucket of requests that name no client at all
 * (`ip:<address>` under `rl:addr`, RATE_LIMIT_PER_ADDRESS), and refused once that is spent. The
 * count is taken before the answer, atomically, so concurrent requests cannot all slip through.
 * Clients that exist and authenticate as registered never pay it. A request the rate limiter already
 * counted in that bucket (its client id names no client: rate-limit.ts) is not counted again.
 */
import type { RedisClient } from '@school/shared';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { refuseTooMany } from '../provider/too-many-requests.js';
import { addressKey } from '../client-address.js';
import { countedAtAddress, type Limit } from './rate-limit.js';

/**
 * Counts one unidentified-client request from `ip`; resolves with the seconds to wait when the
 * address is over its limit, else undefined (also when Redis is unreachable: the endpoint reports it).
 */
export type UnidentifiedClientCount = (ip: string) => Promise<number | undefined>;

/** The count, in Redis; `onLimited` is told each refused address key (the audit log). */
export function unidentifiedClientCount(
  redis: RedisClient,
  prefix: string,
  limit: Limit,
  onLimited: (key: string) => void = () => undefined,
): UnidentifiedClientCount {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${prefix}rl:addr`,
    points: limit.points,
    duration: limit.seconds,
  });
  return async (ip) => {
    const key = `ip:${addressKey(ip)}`;
    try {
      await limiter.consume(key);
      return undefined;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) return undefined;
      onLimited(key);
      return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    }
  };
}

/** The oidc-provider routes where a client id with no client behind it is counted. */
const COUNTED_ROUTES: ReadonlySet<string> = new Set(['token', 'introspection', 'revocation']);

/** The request context oidc-provider runs a client lookup in, as far as this limit reads it. */
interface LookupContext {
  ip?: string;
  req?: object;
  oidc?: { route?: string };
  set?: (name: string, value: string) => void;
}

/**
 * The Redis adapter's `onClientMissing` hook: counts a lookup of a client that is not stored, made
 * while answering a token, introspection or revocation request, and refuses it with `429` once its
 * address is over the limit.
 */
export function refuseUnknownClientsOverLimit(
  count: UnidentifiedClientCount,
): (request: object | undefined) => Promise<void> {
  return async (request) => {
    const ctx = request as LookupContext | undefined;
    if (!ctx?.ip || !COUNTED_ROUTES.has(ctx.oidc?.route ?? '') || countedAtAddress(ctx.req)) return;
    const retryAfter = await count(ctx.ip);
    if (retryAfter !== undefined)
      refuseTooMany(ctx, `rate limit exceeded; retry after ${retryAfter} s`, retryAfter);
  };
}
