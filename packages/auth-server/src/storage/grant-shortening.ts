/**
 * Shortening a grant's tokens to a new end (the term review, account-pages/term-review.ts): after the
 * Grant itself is saved with the earlier `exp` (through oidc-provider's model), every access and
 * refresh token listed under it that would outlive that end gets the end too, in its payload (`exp`,
 * which oidc-provider checks on every read) and in its key's expiry, so Redis forgets it then. A
 * refresh token is a hash `{p: payload, c: consumedAt}` (redis-keys.ts): only `p` is rewritten, so a
 * consumption racing the rewrite keeps its mark. Each token is one key, in the grant's slot.
 */
import type { RedisClient } from '@school/shared';
import { grantListKey, modelPrefix } from './redis-keys.js';

/** Keeps a key this long past its `exp`, as the adapter does (its clock tolerance). */
const TOLERANCE_SECONDS = 15;

/** Gives every token of `grantId` that ends after `endsAt` (Unix seconds) that end; returns how many. */
export async function shortenGrantTokens(
  redis: RedisClient,
  prefix: string,
  grantId: string,
  endsAt: number,
): Promise<{ accessTokens: number; refreshTokens: number }> {
  const access = modelPrefix(prefix, 'AccessToken');
  const refresh = modelPrefix(prefix, 'RefreshToken');
  const keys = await redis.lrange(grantListKey(prefix, grantId), 0, -1);
  const shortened = { accessTokens: 0, refreshTokens: 0 };
  for (const key of new Set(keys)) {
    const isRefresh = key.startsWith(refresh);
    if (!isRefresh && !key.startsWith(access)) continue;
    const json = isRefresh ? await redis.hget(key, 'p') : await redis.get(key);
    if (!json) continue; // ended or expired meanwhile
    const payload = JSON.parse(json) as { exp?: number };
    if (payload.exp !== undefined && payload.exp <= endsAt) continue;
    const rewritten = JSON.stringify({ ...payload, exp: endsAt });
    const at = String(endsAt + TOLERANCE_SECONDS);
    if (isRefresh) {
      await redis.multi().hset(key, 'p', rewritten).expireat(key, at).exec();
      shortened.refreshTokens++;
    } else {
      await redis.set(key, rewritten, 'EXAT', at, 'XX');
      shortened.accessTokens++;
    }
  }
  return shortened;
}
