/**
 * The login sessions of one account, so they can be ended together: "Sign out everywhere" ends all of
 * them, a password change all but the one it was made in, a password reset all of them.
 *
 * oidc-provider keeps a Session per browser (`Session:<id>`, with its `uid` under `sessionUid:<uid>`)
 * and has no way to find an account's sessions. The adapter therefore indexes every Session that
 * names an account in `accountSessions:<accountId>` (redis-keys.ts), a sorted set scored by the
 * session's expiry, with plain commands beside the Session's own script rather than inside it: the
 * index lives in another cluster slot, and every script keeps to one slot. The index may name sessions
 * that are gone, or that have since moved to another id (oidc-provider renews a session's id at each
 * sign-in) or to another account ("Not you?"): reading checks each session's own `accountId`.
 *
 * Ending a session deletes its record: the browser's `_session` cookie then names nothing, and
 * oidc-provider treats that browser as signed out. The apps' grants and tokens are untouched.
 */
import type { RedisClient } from '@school/shared';
import { accountSessionsKey, modelKey, sessionUidKey } from './redis-keys.js';

/** Records that Session `sessionId` of `accountId` lives `ttlSeconds` from now. */
export async function indexAccountSession(
  redis: RedisClient,
  prefix: string,
  accountId: string,
  sessionId: string,
  ttlSeconds: number,
): Promise<void> {
  const key = accountSessionsKey(prefix, accountId);
  const now = Math.floor(Date.now() / 1000);
  await Promise.all([
    redis.zadd(key, now + ttlSeconds, sessionId),
    redis.zremrangebyscore(key, '-inf', now),
    redis.expire(key, ttlSeconds, 'NX'),
    redis.expire(key, ttlSeconds, 'GT'),
  ]);
}

/**
 * Ends every login session of `accountId` but `keep` (a session id), if given; returns how many it
 * ended.
 */
export async function endAccountSessions(
  redis: RedisClient,
  prefix: string,
  accountId: string,
  keep?: string,
): Promise<number> {
  const key = accountSessionsKey(prefix, accountId);
  const ids = (await redis.zrange(key, '0', '-1')).filter((id) => id !== keep);
  if (!ids.length) return 0;
  // One GET and DEL per key: the sessions live in many cluster slots.
  const payloads = await Promise.all(ids.map((id) => redis.get(modelKey(prefix, 'Session', id))));
  const ended = await Promise.all(
    ids.map(async (id, i) => {
      const session = payloads[i] ? (JSON.parse(payloads[i]) as { accountId?: string; uid?: string }) : {};
      if (session.accountId !== accountId) return 0;
      const [deleted] = await Promise.all([
        redis.del(modelKey(prefix, 'Session', id)),
        session.uid ? redis.del(sessionUidKey(prefix, session.uid)) : 0,
      ]);
      return deleted;
    }),
  );
  await redis.zrem(key, ...ids);
  return ended.reduce((a, b) => a + b, 0);
}
