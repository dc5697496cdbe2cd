/**
 * Rate limits on the endpoints anybody can call (the endpoint table's `rateLimit`: authorization,
 * registration, token, introspection, revocation), one step per limit, counted in Redis with rate-limiter-flexible so they hold across every auth-server
 * instance. Addresses are counted by `addressKey` (an IPv6 client by its /64).
 *
 * The authorization endpoint is limited per address because every valid request there writes an
 * Interaction to Redis for INTERACTION_TTL: unlimited, anyone holding a registered client id could
 * fill Redis from one address. Only the request that starts a flow counts, not its resumption
 * (`/oauth/authorize/<uid>`) after login and consent.
 *
 * Keys: per client id and address where the request names a client (so many users behind one shared
 * address are not all blocked by one noisy client), per address with a more generous bound otherwise.
 * Not per client id alone: the limit is counted before oidc-provider authenticates the client, and
 * client ids are public (they travel in URLs), so a bucket shared by every address would let anyone
 * spend a client's budget without its secret — flooding `client_id=resource-api` at the introspection
 * endpoint would have turned the API's token checks into 429s, i.e. 503s for its users. The client id
 * is read from the form (http/request-form.ts), parsed once before oidc-provider; the provider then
 * takes the already-read body (`req.body`). Bodies over their cap were refused by the body step before.
 *
 * An exceeded limit answers 429 with `Retry-After` and an RFC 6749-shaped body. When Redis itself is
 * unreachable the limiter lets the request through: the endpoint then answers 503 on its own, and a
 * limiter must not turn a storage outage into a different error.
 */
import { requestForm } from './request-form.js';
import type { Context, Middleware } from 'koa';
import type { RateLimitName, RedisClient } from '@school/shared';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Count, CountWithRead } from '../storage/introspection-count.js';
import { TooManyRequestsError } from '@school/shared';
import { addressKey } from '../client-address.js';

/** One limit: `points` requests per `seconds`. */
export interface Limit {
  points: number;
  seconds: number;
}

/** The limits of each endpoint. */
export interface RateLimits {
  /** Authorization requests that start a flow (any method but a CORS preflight), per address. */
  authorizationPerAddress: Limit;
  registrationPerAddress: Limit;
  tokenPerClient: Limit;
  introspectionPerClient: Limit;
  revocationPerClient: Limit;
  /** For requests that name no client. */
  perAddress: Limit;
}

/** The step counting requests under one named limit. */
export type RateLimitStep = (name: RateLimitName) => Middleware;

/** The rate-limit steps, their counters in Redis shared by every step built here. */
export function rateLimitSteps(
  redis: RedisClient,
  prefix: string,
  limits: RateLimits,
  onLimited: (ctx: Context, key: string) => void = () => undefined,
  /**
   * Per limit: counts a request together with that endpoint's first storage read, in one script
   * (storage/introspection-count.ts); where it declines (returns undefined) the library counts.
   */
  countWithRead: Partial<Record<RateLimitName, CountWithRead>> = {},
): RateLimitStep {
  const limiter = (name: string, l: Limit) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}rl:${name}`,
      points: l.points,
      duration: l.seconds,
    });
  const perClient = {
    token: limiter('token', limits.tokenPerClient),
    introspection: limiter('introspect', limits.introspectionPerClient),
    revocation: limiter('revoke', limits.revocationPerClient),
  };
  const registration = limiter('register', limits.registrationPerAddress);
  const authorization = limiter('authorize', limits.authorizationPerAddress);
  const perAddress = limiter('addr', limits.perAddress);

  return (name) => {
    if (name === 'authorization')
      return async function limitAuthorization(ctx, next) {
        if (ctx.method === 'OPTIONS') {
          await next();
          return;
        }
        return limited(ctx, authorization, addressKey(ctx.ip), undefined, next);
      };
    if (name === 'registration')
      return async function limitRegistration(ctx, next) {
        if (ctx.method !== 'POST') {
          await next();
          return;
        }
        return limited(ctx, registration, addressKey(ctx.ip), undefined, next);
      };
    const byClient = perClient[name];
    const read = countWithRead[name];
    return async function limitPerClient(ctx, next) {
      if (ctx.method !== 'POST') {
        await next();
        return;
      }
      const form = await requestForm(ctx);
      if (typeof form === 'string') {
        await next();
        return;
      }
      const address = addressKey(ctx.ip);
      const clientId = form.get('client_id');
      const chosen = clientId ? byClient : perAddress;
      const key = clientId ? `client:${clientId}:ip:${address}` : `ip:${address}`;
      const counted = read?.(ctx, form, chosen.getKey(key), chosen.duration);
      return limited(ctx, chosen, key, counted, next);
    };
  };

  /** Counts the request under `key` (or takes the count already made) and refuses it when over. */
  async function limited(
    ctx: Context,
    chosen: RateLimiterRedis,
    key: string,
    counted: Promise<Count> | undefined,
    next: () => Promise<unknown>,
  ): Promise<unknown> {
    try {
      if (counted) {
        const { consumed, msBeforeNext }: Count = await counted;
        if (consumed > chosen.points) throw Object.assign(new RateLimiterRes(), { msBeforeNext });
      } else {
        await chosen.consume(key);
      }
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        onLimited(ctx, key);
        throw new TooManyRequestsError(`rate limit exceeded; retry after ${retryAfter} s`, retryAfter);
      }
      // Redis unreachable: let the endpoint answer (it reports the outage itself).
    }
    return next();
  }
}
