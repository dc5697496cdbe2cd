/**
 * The refresh-token reuse window (REFRESH_REUSE_GRACE, docs/decisions.md "Refresh-token reuse
 * window"). Public clients' refresh tokens rotate on every use, and a rotated one presented again
 * means theft (RFC 9700 §4.14.2). Real agents break that: several processes share one stored token,
 * and a process may present a token another one rotated minutes ago. Ending the grant then sends the
 * user through the browser again ("logged out again").
 *
 * So a rotated refresh token presented again is answered, not punished, when all of these hold:
 * - the same client presents it;
 * - within the window after its rotation;
 * - from the same installation: for a DPoP-bound token, with a proof signed by the key it is bound
 *   to; for an unbound one, from the address (client-address.ts's key) of the grant's last
 *   rotation (storage/refresh-lineage.ts).
 * The answer is the grant's current refresh token and a fresh access token (oidc-provider's handler
 * run again on the current token, told not to rotate it: refresh-rotation.ts), however many rotations
 * ago the presented token was replaced; it is audited (`refresh_token_reuse_allowed`) and counted for
 * Connected apps. Anything else (another client, outside the window, another key, another address)
 * is theft: the grant and every token of it are deleted (each instance then finds nothing; the
 * revoked access tokens are published to the resource APIs), the answer is `invalid_grant`, and the
 * grant.error event audits it as `refresh_token_reuse` (audit/provider-events.ts) with the reason.
 *
 * How oidc-provider is made to ask first: the presented token is marked (storage/rotated-refresh.ts),
 * and the adapter's read of it throws {@link RotatedRefresh} when it is consumed, before the handler
 * has done anything. Two requests racing with the same current token are decided by the consumption
 * itself (one HSETNX in Redis, whichever instance runs it): the loser gets {@link ConcurrentRefresh}
 * and answers with the winner's response, kept for a few seconds, under the same conditions.
 *
 * oidc-provider has no hook around a grant, so its refresh_token handler is wrapped where it keeps it
 * (its internal instance store; oidc-provider is pinned to an exact version).
 */
import type { RedisClient } from '@school/shared';
import { errors, type KoaContextWithOIDC, type Provider } from 'oidc-provider';
import validateDpop from 'oidc-provider/lib/helpers/validate_dpop.js';
import instance from 'oidc-provider/lib/helpers/weak_cache.js';
import type { AuditLog } from '../audit/audit-log.js';
import { addressKey } from '../client-address.js';
import { ConcurrentRefresh } from '../storage/redis-adapter.js';
import { refreshAnswerKey } from '../storage/redis-keys.js';
import {
  countReuse,
  currentRefresh,
  recordRotation,
  type RefreshLineage,
} from '../storage/refresh-lineage.js';
import { RotatedRefresh, watchRotation } from '../storage/rotated-refresh.js';
import { answerWithoutRotation } from './refresh-rotation.js';

type GrantHandler = (ctx: KoaContextWithOIDC) => Promise<void>;

/** A token response as oidc-provider writes it. */
interface TokenAnswer {
  refresh_token?: string;
  [member: string]: unknown;
}

/** What a rotation keeps for a concurrent refresh: who asked, from where, and what they got. */
interface KeptAnswer {
  clientId: string;
  address: string;
  answer: TokenAnswer;
}

/** What the window needs. */
export interface RefreshReuseOptions {
  provider: Provider;
  redis: RedisClient;
  prefix: string;
  /** The window, seconds; 0 leaves oidc-provider's strict rotation as it is. */
  seconds: number;
  audit: AuditLog;
  /** How long a reuse is remembered for Connected apps, seconds (the grant's longest life). */
  grantTtlSeconds: number;
}

const POLL_MS = 25;
/** How long a rotation's response is kept for a request that lost the race to it, seconds. */
const KEPT_SECONDS = 30;
/** How often a reuse answer tries again when the current token rotates under it. */
const ATTEMPTS = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wraps oidc-provider's refresh_token grant with the reuse window. */
export function allowRefreshReuse({
  provider,
  redis,
  prefix,
  seconds,
  audit,
  grantTtlSeconds,
}: RefreshReuseOptions): void {
  if (seconds <= 0) return;
  const handlers = (instance(provider) as { grantTypeHandlers: Map<string, GrantHandler> }).grantTypeHandlers;
  const original = handlers.get('refresh_token');
  if (!original) throw new Error('oidc-provider has no refresh_token grant to wrap');
  const raceWaitMs = Math.min(seconds * 1000, 10_000);
  const keptSeconds = Math.min(seconds, KEPT_SECONDS) + 1;

  /** Ends a grant whose rotated token was presented by someone else, and refuses. */
  const theft = async (grantId: string | undefined, reason: string): Promise<never> => {
    if (grantId) {
      // Tokens first (published to the resource APIs), then the Grant: a token the winner of a race
      // may still be saving under it is checked against its grant, and so is dead too.
      await provider.Grant.adapter.revokeByGrantId(grantId);
      await provider.Grant.adapter.destroy(grantId);
    }
    throw new errors.InvalidGrant(`refresh token already used (${reason}); grant revoked`);
  };

  /** Records an answered reuse: the audit event and the Connected apps count. */
  const noteReuse = async (ctx: KoaContextWithOIDC, grantId: string, how: string, rotatedAt: number) => {
    void audit.record('refresh_token_reuse_allowed', {
      requestId: ctx.state?.requestId as string | undefined,
      ip: ctx.ip,
      clientId: ctx.oidc.client?.clientId,
      accountId: ctx.oidc.entities.RefreshToken?.accountId,
      details: { grant_id: grantId, same_installation_by: how, rotated_seconds_ago: now() - rotatedAt },
    });
    await countReuse(redis, prefix, grantId, grantTtlSeconds);
  };

  /** Why a rotated token presented in `ctx` is not the same installation's, or undefined when it is. */
  const refusal = async (
    ctx: KoaContextWithOIDC,
    { token, consumedAt }: RotatedRefresh,
    address: string,
    lineage: RefreshLineage | undefined,
  ): Promise<string | undefined> => {
    if (token.clientId !== ctx.oidc.client!.clientId) return 'presented by another client';
    if (now() - consumedAt > seconds || !lineage) return 'outside the reuse window';
    if (typeof token.jkt === 'string') {
      const proof = await validateDpop(provider, ctx);
      return proof?.thumbprint === token.jkt ? undefined : 'without a proof of its DPoP key';
    }
    return lineage.address === address ? undefined : 'from another address than its last refresh';
  };

  /** Answers a rotated token from the same installation with the grant's current refresh token. */
  const answerRotated = async (ctx: KoaContextWithOIDC, rotated: RotatedRefresh, address: string) => {
    const grantId = rotated.token.grantId;
    for (let attempt = 1, waited = 0; ; attempt++) {
      const lineage = grantId ? await currentRefresh(redis, prefix, grantId) : undefined;
      // Rotated a moment ago by a concurrent request that has not recorded its rotation yet (on a
      // Redis Cluster the consumption is seen before the race is decided): wait for it.
      if (grantId && !lineage && now() - rotated.consumedAt <= raceWaitMs / 1000 && waited < raceWaitMs) {
        await sleep(POLL_MS);
        waited += POLL_MS;
        attempt--;
        continue;
      }
      const reason = await refusal(ctx, rotated, address, lineage);
      if (reason || !lineage) return theft(grantId, reason ?? 'no grant');
      answerWithoutRotation(ctx);
      ctx.oidc.params!.refresh_token = lineage.token;
      watchRotation(ctx, lineage.token);
      try {
        await original(ctx);
        const how = typeof rotated.token.jkt === 'string' ? 'dpop_key' : 'address';
        return await noteReuse(ctx, grantId!, how, rotated.consumedAt);
      } catch (err) {
        // The current token rotated meanwhile (another process refreshed): read the new one.
        if (!(err instanceof RotatedRefresh) || attempt >= ATTEMPTS) throw err;
        await sleep(POLL_MS);
      }
    }
  };

  /**
   * `503 temporarily_unavailable`: the concurrent refresh that rotated this token has not answered yet
   * (a slow winner is no evidence of theft); the client retries.
   */
  const refreshBusy = () =>
    Object.assign(
      new errors.TemporarilyUnavailable('a concurrent refresh of this token is still running; retry shortly'),
      { status: 503, statusCode: 503, expose: true },
    );

  /** Answers the loser of a race for the current token with the winner's response. */
  const answerConcurrent = async (ctx: KoaContextWithOIDC, err: ConcurrentRefresh, address: string) => {
    const clientId = ctx.oidc.client!.clientId;
    // oidc-provider checked the DPoP key of a bound token before consuming it.
    const bound = typeof ctx.oidc.entities.RefreshToken?.jkt === 'string';
    const key = refreshAnswerKey(prefix, err.tokenId);
    for (let waited = 0; waited <= raceWaitMs; waited += POLL_MS) {
      const json = await redis.get(key);
      if (json) {
        const kept = JSON.parse(json) as KeptAnswer;
        if (kept.clientId !== clientId) return theft(err.grantId, 'presented by another client');
        if (!bound && kept.address !== address)
          return theft(err.grantId, 'from another address than its last refresh');
        const successor = kept.answer.refresh_token
          ? await provider.RefreshToken.find(kept.answer.refresh_token, { ignoreExpiration: true })
          : undefined;
        if (!successor) return theft(err.grantId, 'the grant was revoked meanwhile');
        ctx.body = kept.answer;
        return noteReuse(ctx, err.grantId!, bound ? 'dpop_key' : 'address', now());
      }
      await sleep(POLL_MS);
    }
    // The winner is slow (a busy machine), which is no evidence of theft: the client tries again.
    throw refreshBusy();
  };

  handlers.set('refresh_token', async function refreshWithReuseWindow(ctx: KoaContextWithOIDC) {
    const presented = (ctx.oidc.params?.refresh_token as string | undefined) ?? '';
    const address = addressKey(ctx.ip);
    watchRotation(ctx, presented);
    try {
      await original(ctx);
    } catch (err) {
      if (err instanceof RotatedRefresh) return answerRotated(ctx, err, address);
      if (err instanceof ConcurrentRefresh) return answerConcurrent(ctx, err, address);
      throw err;
    }
    const rotated = (ctx.oidc.entities as { RotatedRefreshToken?: { grantId?: string } }).RotatedRefreshToken;
    const answer = ctx.body as TokenAnswer | undefined;
    if (!rotated?.grantId || !answer?.refresh_token || answer.refresh_token === presented) return;
    const kept: KeptAnswer = { clientId: ctx.oidc.client!.clientId, address, answer };
    await Promise.all([
      recordRotation(redis, prefix, rotated.grantId, { token: answer.refresh_token, address }, seconds),
      redis.set(refreshAnswerKey(prefix, presented), JSON.stringify(kept), 'EX', keptSeconds),
    ]);
  });
}

const now = () => Math.floor(Date.now() / 1000);
