/**
 * The introspection route's one Redis round trip.
 *
 * Introspection is the auth server's hottest call (every cache miss of every resource server). Done
 * naively it costs three Redis commands in sequence: the rate limiter's count, the access token, its
 * grant. Here one script does all three on one Redis node (or Sentinel's primary): it counts the
 * request exactly as rate-limiter-flexible's `RateLimiterRedis` counts (same key, a fixed window
 * opened with SET NX EX, INCR, PTTL), then reads the presented access token and, by the grant id in
 * it, the grant (same slot, redis-keys.ts). On a cluster the counter and the token live in different
 * hash slots, so there the count and the read are two scripts sent in the same tick, to both nodes
 * at once. One script rather than two auto-pipelined ones took what the Redis adapter adds to an
 * introspection over the memory adapter from about 46 µs to 9–27 µs (bench/PERFORMANCE.md, AS2): one
 * command less to build, send, run and answer, and the promises that go with it. The rate limiter decides from
 * the count as usual; the token and grant are handed to the adapter for the rest of this request only
 * (request-reads.ts), where oidc-provider's `AccessToken.find` and `Grant.find` take them instead of
 * reading again. Nothing is reused across requests, so a revocation is seen by the very next request.
 *
 * Only for a `token_type_hint` absent or `access_token` (oidc-provider then looks the access token up
 * first) and for values shaped like our opaque tokens; anything else is counted by the library and
 * read by the adapter as usual.
 */
import type { RedisClient } from '@school/shared';
import { Cluster } from 'ioredis';
import { startRead, type FoundWithGrant } from './request-reads.js';
import { modelKey, modelPrefix } from './redis-keys.js';
import { withScripts, type CountAndFindReply } from './redis-scripts.js';

/**
 * Opaque token values as oidc-provider mints them (base64url); anything else is not read early (nor
 * answered by http/direct-introspection.ts, whose requests are the ones read early).
 */
export const TOKEN_SHAPE = /^[\w-]{20,128}$/;
/** The `token_type_hint` values under which oidc-provider looks the access token up first. */
export const ACCESS_TOKEN_HINTS: ReadonlySet<string> = new Set([
  'access_token',
  'urn:ietf:params:oauth:token-type:access_token',
]);

/** A fixed-window count as the rate limiter needs it. */
export interface Count {
  consumed: number;
  msBeforeNext: number;
}

/**
 * Counts one request of `ctx` under `counterKey` (a window of `seconds`) and, in the same script,
 * reads the access token its form presents; undefined when this request is not one to read early.
 */
export type CountWithRead = (
  ctx: object,
  form: URLSearchParams,
  counterKey: string,
  seconds: number,
) => Promise<Count> | undefined;

/**
 * The introspection route's {@link CountWithRead} for storage under `prefix`. `countOnly` skips the
 * read (for the benchmark's reference server, whose tokens are not in Redis: it then counts exactly
 * as this server does, so the two differ in storage only).
 */
export function createIntrospectionCount(
  redis: RedisClient,
  options: { prefix: string; countOnly?: boolean },
): CountWithRead {
  const r = withScripts(redis);
  const grantPrefix = modelPrefix(options.prefix, 'Grant');
  const oneNode = !(redis instanceof Cluster);
  return (ctx, form, counterKey, seconds) => {
    const token = form.get('token');
    const hint = form.get('token_type_hint');
    if (!token || !TOKEN_SHAPE.test(token) || (hint && !ACCESS_TOKEN_HINTS.has(hint))) return undefined;
    if (options.countOnly) return r.oidcCount(counterKey, seconds).then(countOf);
    const tokenKey = modelKey(options.prefix, 'AccessToken', token);
    if (oneNode) {
      const reply = r.oidcCountAndFind(counterKey, tokenKey, seconds, grantPrefix);
      startRead(ctx, tokenKey, reply.then(foundOf));
      return reply.then(countOf);
    }
    const count = r.oidcCount(counterKey, seconds);
    startRead(ctx, tokenKey, r.oidcFindWithGrant(tokenKey, '0', grantPrefix));
    return count.then(countOf);
  };
}

const countOf = ([consumed, msBeforeNext]: [number, number, ...unknown[]]): Count => ({
  consumed,
  msBeforeNext,
});

/** The token read of a `oidcCountAndFind` reply, as `oidcFindWithGrant` answers for an access token. */
const foundOf = ([, , payload, grantId, grant]: CountAndFindReply): FoundWithGrant | null =>
  payload ? [payload, null, grantId ?? null, grant ?? null] : null;
