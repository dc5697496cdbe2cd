/**
 * Rate limits on the endpoints anybody can call (authorization, registration, token, introspection,
 * revocation), counted in Redis with rate-limiter-flexible so they hold across every auth-server
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
 * is read from the form body, which this middleware therefore reads (bounded) before oidc-provider;
 * the provider then takes the already-read body (`req.body`).
 *
 * An exceeded limit answers 429 with `Retry-After` and an RFC 6749-shaped body. When Redis itself is
 * unreachable the limiter lets the request through: the endpoint then answers 503 on its own, and a
 * limiter must not turn a storage outage into a different error.
 */
import { peekBody } from './peek-body.js';
import { FORM_LIMIT, requestForm } from './request-form.js';
import type { Context, Middleware } from 'koa';
import type { RedisClient } from '@school/shared';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Count, CountWithRead } from '../storage/introspection-count.js';
import { OAuthError, REGISTRATION_CAPS, RequestTooLargeError, TooManyRequestsError } from '@school/shared';
import { addressKey } from './client-address.js';

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

/** Koa middleware enforcing {@link RateLimits} on the auth server's public API routes. */
export function rateLimit(
  redis: RedisClient,
  prefix: string,
  limits: RateLimits,
  routes: Record<'authorization' | 'registration' | 'token' | 'introspection' | 'revocation', string>,
  onLimited: (ctx: Context, key: string) => void = () => undefined,
  /**
   * Per route path: counts a request together with that route's first storage read, in one script
   * (storage/introspection-count.ts); where it declines (returns undefined) the library counts.
   */
  countWithRead: Record<string, CountWithRead> = {},
): Middleware {
  const limiter = (name: string, l: Limit) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}rl:${name}`,
      points: l.points,
      duration: l.seconds,
    });
  const byRoute = new Map([
    [routes.token, limiter('token', limits.tokenPerClient)],
    [routes.introspection, limiter('introspect', limits.introspectionPerClient)],
    [routes.revocation, limiter('revoke', limits.revocationPerClient)],
  ]);
  const registration = limiter('register', limits.registrationPerAddress);
  const authorization = limiter('authorize', limits.authorizationPerAddress);
  const perAddress = limiter('addr', limits.perAddress);

  return async (ctx, next) => {
    if (ctx.path === routes.authorization && ctx.method !== 'OPTIONS') {
      return limited(ctx, authorization, addressKey(ctx.ip), undefined, next);
    }
    if (ctx.method !== 'POST') return next();
    let chosen: RateLimiterRedis | undefined;
    let key: string | undefined;
    let counted: Promise<Count> | undefined;
    const address = addressKey(ctx.ip);
    if (ctx.path === routes.registration) {
      chosen = registration;
      key = address;
      if ((await peekBody(ctx, REGISTRATION_CAPS.body)) === 'too_large') {
        const limit = REGISTRATION_CAPS.body;
        // RFC 7591's code: a registration client reads invalid_client_metadata (so does the edge's 413).
        throw new OAuthError(
          413,
          'invalid_client_metadata',
          `registration bodies are limited to ${limit} bytes`,
        );
      }
    } else if (byRoute.has(ctx.path)) {
      const form = await requestForm(ctx);
      if (form === 'too_large') throw new RequestTooLargeError(FORM_LIMIT);
      if (form === 'not_a_form') return next();
      const clientId = form.get('client_id');
      chosen = clientId ? byRoute.get(ctx.path) : perAddress;
      key = clientId ? `client:${clientId}:ip:${address}` : `ip:${address}`;
      counted = countWithRead[ctx.path]?.(ctx, form, chosen!.getKey(key), chosen!.duration);
    }
    if (!chosen || !key) return next();
    return limited(ctx, chosen, key, counted, next);
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
