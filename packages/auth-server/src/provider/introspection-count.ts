/**
 * The introspection route's one Redis round trip.
 *
 * Introspection is the auth server's hottest call (every cache miss of every resource server). Done
 * naively it costs three Redis commands in sequence: the rate limiter's count, the access token, its
 * grant. Here one script does all three: it counts the request exactly as rate-limiter-flexible's
 * `RateLimiterRedis` counts (same key, a fixed window opened with SET NX EX, INCR, PTTL), then reads
 * the presented access token and, by the grant id in it, the grant. The rate limiter decides from
 * the count as usual; the token and grant are handed to the adapter for the rest of this request only
 * (request-reads.ts), where oidc-provider's `AccessToken.find` and `Grant.find` take them instead of
 * reading again. Nothing is reused across requests, so a revocation is seen by the very next request.
 *
 * Only for a `token_type_hint` absent or `access_token` (oidc-provider then looks the access token up
 * first) and for values shaped like our opaque tokens; anything else is counted by the library and
 * read by the adapter as usual.
 */
import type { Redis } from 'ioredis';
import { luaDropIfClientGone, luaGrantOfPayload } from './redis-adapter.js';
import { startRead, type FoundWithGrant } from './request-reads.js';

// KEYS[1] = the rate-limit counter, KEYS[2] = the access token's key. ARGV[1] = the window, seconds;
// ARGV[2] = the grant key prefix (`<prefix>Grant:`); ARGV[3] = '0' to count only; ARGV[4] = the
// client key prefix. Returns {count, ms left in the window, and false or the token as the adapter's
// oidcFindWithGrant returns it (false too when its client is gone, as there)}.
const COUNT_AND_READ_SCRIPT = `
redis.call('SET', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  ttl = 1000 * ARGV[1]
end
if ARGV[3] == '0' then return {count, ttl, false} end
local p = redis.call('GET', KEYS[2])
if not p then return {count, ttl, false} end
${luaDropIfClientGone('ARGV[4]')}
if not p then return {count, ttl, false} end
${luaGrantOfPayload('ARGV[2]')}
return {count, ttl, {p, false, gid or false, g}}`;

type CountAndRead = [number, number, FoundWithGrant | null];
type ScriptedRedis = Redis & {
  oidcCountAndRead(
    counterKey: string,
    tokenKey: string,
    seconds: number,
    grantPrefix: string,
    read: '0' | '1',
    clientPrefix: string,
  ): Promise<CountAndRead>;
};

/** Opaque token values as oidc-provider mints them (base64url); anything else is not read early. */
const TOKEN_SHAPE = /^[\w-]{20,128}$/;
const ACCESS_TOKEN_HINTS = new Set(['access_token', 'urn:ietf:params:oauth:token-type:access_token']);

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
  redis: Redis,
  options: { prefix: string; countOnly?: boolean },
): CountWithRead {
  const r = redis as ScriptedRedis;
  if (typeof r.oidcCountAndRead !== 'function') {
    redis.defineCommand('oidcCountAndRead', { numberOfKeys: 2, lua: COUNT_AND_READ_SCRIPT });
  }
  const grantPrefix = `${options.prefix}Grant:`;
  const clientPrefix = `${options.prefix}Client:`;
  return (ctx, form, counterKey, seconds) => {
    const token = form.get('token');
    const hint = form.get('token_type_hint');
    if (!token || !TOKEN_SHAPE.test(token) || (hint && !ACCESS_TOKEN_HINTS.has(hint))) return undefined;
    const tokenKey = `${options.prefix}AccessToken:${token}`;
    const reply = r.oidcCountAndRead(
      counterKey,
      tokenKey,
      seconds,
      grantPrefix,
      options.countOnly ? '0' : '1',
      clientPrefix,
    );
    if (!options.countOnly) {
      startRead(
        ctx,
        tokenKey,
        reply.then(([, , found]) => found),
      );
    }
    return reply.then(([consumed, msBeforeNext]) => ({ consumed, msBeforeNext }));
  };
}
