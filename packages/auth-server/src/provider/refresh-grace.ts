/**
 * Refresh tokens that survive concurrent clients. Public clients' refresh tokens rotate and
 * a rotated one presented again revokes the whole grant (RFC 9700 §4.14.2). Real agents run several
 * processes sharing one stored refresh token; two of them refreshing at the same moment used to end
 * the user's grant. Now, within REFRESH_REUSE_GRACE seconds of the rotation, the same refresh token
 * from the same client is answered with the very tokens its first refresh issued (not copies: they
 * end with the grant like any other); after the window, reuse revokes the grant as before and is
 * audited (`refresh_token_reuse`).
 *
 * How, without a second source of truth:
 * - the adapter reports a refresh token rotated within the window as unconsumed, so oidc-provider's
 *   handler goes on to consume it; the consumption (one HSETNX in Redis, whichever auth-server
 *   instance runs it) decides the race, and the loser gets {@link ConcurrentRefresh} instead of a
 *   revoked grant (storage/redis-adapter.ts);
 * - the winner keeps its answer under the rotated token's id for the window; the loser waits for it
 *   (the winner may still be issuing) and answers it if the new refresh token still exists, i.e. the
 *   grant was not revoked meanwhile; otherwise the grant is revoked and the answer is invalid_grant.
 *
 * oidc-provider has no hook around a grant, so its refresh_token handler is wrapped where it keeps it
 * (its internal instance store; oidc-provider is pinned to an exact version).
 */
import type { RedisClient } from '@school/shared';
import { errors, type KoaContextWithOIDC, type Provider } from 'oidc-provider';
import instance from 'oidc-provider/lib/helpers/weak_cache.js';
import { ConcurrentRefresh } from '../storage/redis-adapter.js';
import { refreshAnswerKey } from '../storage/redis-keys.js';

type GrantHandler = (ctx: KoaContextWithOIDC) => Promise<void>;

/** A token response as oidc-provider writes it. */
interface TokenAnswer {
  refresh_token?: string;
  [member: string]: unknown;
}

/** What is kept for the window: who asked, and what they got. */
interface KeptAnswer {
  clientId: string;
  answer: TokenAnswer;
}

const POLL_MS = 25;

/** Wraps oidc-provider's refresh_token grant with the grace period; `seconds` 0 leaves it as it is. */
export function allowConcurrentRefresh(
  provider: Provider,
  redis: RedisClient,
  prefix: string,
  seconds: number,
): void {
  if (seconds <= 0) return;
  const handlers = (instance(provider) as { grantTypeHandlers: Map<string, GrantHandler> }).grantTypeHandlers;
  const original = handlers.get('refresh_token');
  if (!original) throw new Error('oidc-provider has no refresh_token grant to wrap');
  const waitMs = Math.min(seconds * 1000, 3000);

  /** The kept answer for `tokenId` to `clientId`, waiting up to `waitMs` for the winner to keep it. */
  const keptAnswer = async (tokenId: string, clientId: string): Promise<TokenAnswer | undefined> => {
    const key = refreshAnswerKey(prefix, tokenId);
    for (let waited = 0; waited <= waitMs; waited += POLL_MS) {
      const json = await redis.get(key);
      if (json) {
        const kept = JSON.parse(json) as KeptAnswer;
        if (kept.clientId !== clientId || !kept.answer.refresh_token) return undefined;
        const successor = await provider.RefreshToken.find(kept.answer.refresh_token, {
          ignoreExpiration: true,
        });
        return successor ? kept.answer : undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return undefined;
  };

  handlers.set('refresh_token', async function refreshWithGrace(ctx: KoaContextWithOIDC) {
    const presented = String(ctx.oidc.params?.refresh_token ?? '');
    const clientId = ctx.oidc.client!.clientId;
    try {
      await original(ctx);
    } catch (err) {
      if (!(err instanceof ConcurrentRefresh)) throw err;
      const answer = await keptAnswer(err.tokenId, clientId);
      if (answer) {
        ctx.body = answer;
        return;
      }
      if (err.grantId) await provider.Grant.adapter.revokeByGrantId(err.grantId);
      throw new errors.InvalidGrant('refresh token already used');
    }
    const answer = ctx.body as TokenAnswer | undefined;
    if (answer?.refresh_token && answer.refresh_token !== presented) {
      const kept: KeptAnswer = { clientId, answer };
      await redis.set(refreshAnswerKey(prefix, presented), JSON.stringify(kept), 'EX', seconds + 1);
    }
  });
}
