/**
 * Rate limits on the endpoints anybody can call (the endpoint table's `rateLimit`: authorization,
 * registration, token, introspection, revocation, device authorization), one step per limit, counted in Redis with rate-limiter-flexible so they hold across every auth-server
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
 * A client id is counted per client only when that client exists (a configured client, or a stored
 * record: one EXISTS, which creates nothing); a request naming one that does not is counted in the
 * address's bucket of requests that name no client, first, so made-up ids (each new one would open a
 * bucket of its own) leave no per-client key and are stopped by the address's bound. Such a request
 * is not counted there a second time when its client is then found missing
 * (unidentified-client-limit.ts: {@link countedAtAddress}). A client id goes into a key bounded
 * (storage/redis-keys.ts `boundedKeyPart`).
 *
 * An exceeded limit answers 429 with `Retry-After` and an RFC 6749-shaped body. When Redis itself is
 * unreachable the limiter lets the request through: the endpoint then answers 503 on its own, and a
 * limiter must not turn a storage outage into a different error.
 *
 * The introspection limit per client is counted by this server's own fixed window
 * (storage/introspection-count.ts: its key layout, its script), not by rate-limiter-flexible: the
 * introspection shortcut counts its requests in the script that also reads the token
 * ({@link IntrospectionLimit}), and the limit's step counts every other introspection under the same
 * key and window, so the two paths share one bucket through an interface of ours. The limit's step
 * leaves a request the shortcut counted alone.
 */
import { requestForm } from './request-form.js';
import type { Context, Middleware } from 'koa';
import type { RateLimitName, RedisClient } from '@school/shared';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { createIntrospectionCount, type Count } from '../storage/introspection-count.js';
import { TooManyRequestsError } from '@school/shared';
import { addressKey } from '../client-address.js';
import { boundedKeyPart } from '../storage/redis-keys.js';

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
  /** Device authorization requests (each stores a pending device code), per client and address. */
  deviceAuthorizationPerClient: Limit;
  /** For requests that name no client. */
  perAddress: Limit;
}

type PerClientName = 'token' | 'introspection' | 'revocation' | 'deviceAuthorization';

/** A request's bucket under the introspection limit, for a step that counts the request itself. */
export interface IntrospectionLimit {
  /** The bucket (client and address), for storage/introspection-count.ts to count under. */
  bucket: string;
  seconds: number;
  /** Decides on the count as the limit's step would: a 429 when over, else the request is counted. */
  settle(count: Count): void;
}

/** The rate limits: a step per named limit, and the introspection limit for a step that counts itself. */
export interface RateLimiting {
  step(name: RateLimitName): Middleware;
  introspection(ctx: Context, clientId: string): IntrospectionLimit;
}

/** Marks a request counted by a step before its limit's own. */
const COUNTED = Symbol('rate-limit-counted');
type Counted = { [COUNTED]?: PerClientName };

/** Marks a request (its Node request, which oidc-provider's context shares) counted in its address's bucket. */
const AT_ADDRESS = Symbol('counted-at-address');
type CountedAtAddress = { [AT_ADDRESS]?: true };

/** Whether the limit's step counted `req` in the bucket of its address (requests naming no known client). */
export function countedAtAddress(req: object | undefined): boolean {
  return (req as CountedAtAddress | undefined)?.[AT_ADDRESS] === true;
}

/** Whether a client with this id exists (a configured client, or a stored one). */
export type ClientExists = (clientId: string) => Promise<boolean>;

/** The rate limits, their counters in Redis shared by every step built here. */
export function rateLimitSteps(
  redis: RedisClient,
  prefix: string,
  limits: RateLimits,
  clientExists: ClientExists,
  onLimited: (ctx: Context, key: string) => void = () => undefined,
): RateLimiting {
  const limiter = (name: string, l: Limit) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}rl:${name}`,
      points: l.points,
      duration: l.seconds,
    });
  /** A limit's count of one request under `key`: rate-limiter-flexible's, or (introspection) ours. */
  type Counter = { points: number; count(key: string): Promise<Count> };
  const library = (name: string, l: Limit): Counter => {
    const chosen = limiter(name, l);
    return {
      points: l.points,
      count: (key) =>
        chosen.consume(key).then(
          (res) => ({ consumed: res.consumedPoints, msBeforeNext: res.msBeforeNext }),
          (err: unknown) => {
            if (err instanceof RateLimiterRes)
              return { consumed: l.points + 1, msBeforeNext: err.msBeforeNext };
            throw err;
          },
        ),
    };
  };
  const introspectionCount = createIntrospectionCount(redis, { prefix, countOnly: true });
  const introspectionLimit = limits.introspectionPerClient;
  const perClient: Record<PerClientName, Counter> = {
    token: library('token', limits.tokenPerClient),
    introspection: {
      points: introspectionLimit.points,
      count: (key) => introspectionCount(key, introspectionLimit.seconds).count,
    },
    revocation: library('revoke', limits.revocationPerClient),
    deviceAuthorization: library('device', limits.deviceAuthorizationPerClient),
  };
  const registration = library('register', limits.registrationPerAddress);
  const authorization = library('authorize', limits.authorizationPerAddress);
  const perAddress = library('addr', limits.perAddress);

  const clientKey = (ctx: Context, clientId: string) =>
    `client:${boundedKeyPart(clientId)}:ip:${addressKey(ctx.ip)}`;
  /** Whether `clientId` names a client; when the answer cannot be had, no (the address counts it). */
  const exists = (clientId: string) => clientExists(clientId).catch(() => false);
  const refuse = (ctx: Context, key: string, msBeforeNext: number): never => {
    const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
    onLimited(ctx, key);
    throw new TooManyRequestsError(`rate limit exceeded; retry after ${retryAfter} s`, retryAfter);
  };
  return { step, introspection };

  function introspection(ctx: Context, clientId: string): IntrospectionLimit {
    const bucket = clientKey(ctx, clientId);
    return {
      bucket,
      seconds: introspectionLimit.seconds,
      settle({ consumed, msBeforeNext }) {
        if (consumed > introspectionLimit.points) refuse(ctx, bucket, msBeforeNext);
        (ctx as Counted)[COUNTED] = 'introspection';
      },
    };
  }

  function step(name: RateLimitName): Middleware {
    if (name === 'authorization')
      return async function limitAuthorization(ctx, next) {
        if (ctx.method === 'OPTIONS') {
          await next();
          return;
        }
        return limited(ctx, authorization, addressKey(ctx.ip), next);
      };
    if (name === 'registration')
      return async function limitRegistration(ctx, next) {
        if (ctx.method !== 'POST') {
          await next();
          return;
        }
        return limited(ctx, registration, addressKey(ctx.ip), next);
      };
    const byClient = perClient[name];
    return async function limitPerClient(ctx, next) {
      if (ctx.method !== 'POST' || (ctx as Counted)[COUNTED] === name) {
        await next();
        return;
      }
      const form = await requestForm(ctx);
      if (typeof form === 'string') {
        await next();
        return;
      }
      const clientId = form.get('client_id');
      if (clientId && (await exists(clientId))) return limited(ctx, byClient, clientKey(ctx, clientId), next);
      (ctx.req as CountedAtAddress)[AT_ADDRESS] = true;
      return limited(ctx, perAddress, `ip:${addressKey(ctx.ip)}`, next);
    };
  }

  /** Counts the request under `key` and refuses it when over. */
  async function limited(
    ctx: Context,
    chosen: Counter,
    key: string,
    next: () => Promise<unknown>,
  ): Promise<unknown> {
    let counted: Count | undefined;
    try {
      counted = await chosen.count(key);
    } catch {
      // Redis unreachable: let the endpoint answer (it reports the outage itself).
    }
    if (counted && counted.consumed > chosen.points) refuse(ctx, key, counted.msBeforeNext);
    return next();
  }
}
