/**
 * Who may rotate a refresh token now, and what the others get: the race of concurrent refreshes with
 * one token, decided in Redis for every instance (provider/refresh-extension/).
 *
 * - {@link claimRefresh}: one `SET NX` on the token's claim key; exactly one request in the deployment
 *   holds it until it expires (a few seconds). The holder alone hands the token to oidc-provider, whose
 *   atomic consume (redis-adapter.ts) then never meets a second consumer. The claim empties the
 *   token's answer list in the same script, so no request that lost it reads an earlier answer.
 * - {@link publishAnswer}: the holder pushes what it answered onto the token's answer list (or that it
 *   gave none, so the others try again), and lets go of a claim it did not rotate under.
 * - {@link awaitAnswer}: the others read the head of that list; when it is empty, they wait on it with
 *   `BLMOVE list list LEFT LEFT` (a blocking read that leaves the list as it was, so every waiter sees
 *   the same answer), on a connection of their own: a blocking command holds its connection, and the
 *   shared one carries every other request. Redis wakes them the moment the answer is pushed.
 *
 * Both keys are in the slot of the token's grant (redis-keys.ts), so this runs unchanged on a Redis
 * Cluster. The token id is the token itself (oidc-provider's opaque format), as in the token's own key:
 * no secret Redis did not already hold.
 */
import type { RedisClient } from '@school/shared';
import type { Cluster, Redis } from 'ioredis';
import { refreshAnswersKey, refreshClaimKey } from './redis-keys.js';
import { withScripts } from './redis-scripts.js';

/** What a claim's holder answered, as its concurrent refreshes need it to judge and answer. */
export interface KeptAnswer {
  /** The client that presented the token. */
  clientId: string;
  /** The address key (client-address.ts) of the holder's request. */
  address: string;
  /** Its address as Koa saw it. */
  ip?: string;
  /** When it answered, Unix seconds. */
  at: number;
  /** The token response it gave. */
  answer: { refresh_token?: string; [member: string]: unknown };
}

/** The holder answered nothing (oidc-provider refused it, or it failed): the others try again. */
export interface NoAnswer {
  retry: true;
}

/** Claims `tokenId` for this request for `seconds`; whether it is this request's. */
export async function claimRefresh(
  redis: RedisClient,
  prefix: string,
  tokenId: string,
  seconds: number,
): Promise<boolean> {
  const claim = refreshClaimKey(prefix, tokenId);
  return (
    (await withScripts(redis).oidcClaimRefresh(claim, refreshAnswersKey(prefix, tokenId), seconds)) === 1
  );
}

/**
 * Pushes the holder's outcome for `tokenId` to the requests waiting on it, kept for `seconds`; with
 * `release`, lets go of the claim too (the token was not consumed: a later refresh may claim it).
 */
export async function publishAnswer(
  redis: RedisClient,
  prefix: string,
  tokenId: string,
  outcome: KeptAnswer | NoAnswer,
  seconds: number,
  release: boolean,
): Promise<void> {
  const list = refreshAnswersKey(prefix, tokenId);
  // The claim goes first: a waiter woken by the push may claim again at once.
  if (release) await redis.del(refreshClaimKey(prefix, tokenId));
  await Promise.all([redis.lpush(list, JSON.stringify(outcome)), redis.expire(list, seconds)]);
}

/** The latest outcome for `tokenId`, waiting up to `waitMs` for one; undefined when none came. */
export async function awaitAnswer(
  redis: RedisClient,
  prefix: string,
  tokenId: string,
  waitMs: number,
): Promise<KeptAnswer | NoAnswer | undefined> {
  const list = refreshAnswersKey(prefix, tokenId);
  let json = await redis.lindex(list, 0);
  if (json === null && waitMs > 0) {
    // The shared client's settings (lazy, failing fast): connected here, refusing rather than queueing.
    const waiting: RedisClient = redis.isCluster
      ? (redis as Cluster).duplicate()
      : (redis as Redis).duplicate();
    waiting.on('error', () => undefined); // a failure rejects the calls below, where it is handled
    try {
      await waiting.connect();
      json = await waiting.blmove(list, list, 'LEFT', 'LEFT', waitMs / 1000);
    } finally {
      waiting.disconnect();
    }
  }
  return json ? (JSON.parse(json) as KeptAnswer | NoAnswer) : undefined;
}
