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
 *
 * A hosted client (clients/client-kind.ts: every redirect URI a fixed https callback, e.g. an MCP
 * connector running in its provider's cloud) refreshes from a pool of workers and addresses, which
 * race with one token. For it an unbound token from another address is also the same installation:
 * - when both addresses are inside the egress ranges an operator listed for it
 *   (clients/egress-ranges.ts), for the whole window;
 * - else when it is the token the grant's last rotation replaced (not one a generation older),
 *   presented within HOSTED_REFRESH_RACE of that rotation: the race of two workers, which lasts
 *   seconds, not the copy of a token, which is used later or after another rotation.
 * The answer is the grant's current refresh token and a fresh access token (oidc-provider's handler
 * run again on the current token, told not to rotate it: refresh-rotation.ts), however many rotations
 * ago the presented token was replaced; it is audited (`refresh_token_reuse_allowed`) and counted for
 * Connected apps. Anything else (another client, outside the window, another key, another address
 * outside the rules for hosted clients) is theft: the grant and every token of it are deleted (each
 * instance then finds nothing; the revoked access tokens are published to the resource APIs), the
 * answer is `invalid_grant`, and the grant.error event audits it as `refresh_token_reuse`
 * (audit/provider-events.ts) with the reason.
 *
 * How oidc-provider is made to ask first: the presented token is marked (storage/rotated-refresh.ts),
 * and the adapter's read of it throws {@link RotatedRefresh} when it is consumed, before the handler
 * has done anything. Two requests racing with the same current token are decided by the consumption
 * itself (one HSETNX in Redis, whichever instance runs it): the loser gets {@link ConcurrentRefresh}
 * and answers with the winner's response, kept for a few seconds, under the same conditions.
 *
 * oidc-provider has no hook around a grant, so its refresh_token handler is wrapped where it keeps it
 * (oidc-internals.ts).
 */
import type { RedisClient } from '@school/shared';
import { errors, type KoaContextWithOIDC, type Provider } from 'oidc-provider';
import type { AuditLog } from '../audit/audit-log.js';
import { addressKey } from '../client-address.js';
import { hasFixedHttpsCallbacks } from '../clients/client-kind.js';
import { inEgressRanges } from '../clients/egress-ranges.js';
import { clientEgressRanges } from '../storage/client-egress.js';
import { ConcurrentRefresh } from '../storage/redis-adapter.js';
import { grantHandlers, requestDpopProof } from './oidc-internals.js';
import { refreshAnswerKey } from '../storage/redis-keys.js';
import {
  countReuse,
  currentRefresh,
  recordRotation,
  type RefreshLineage,
} from '../storage/refresh-lineage.js';
import { RotatedRefresh, watchRotation } from '../storage/rotated-refresh.js';
import { answerWithoutRotation } from './refresh-rotation.js';

/** A token response as oidc-provider writes it. */
interface TokenAnswer {
  refresh_token?: string;
  [member: string]: unknown;
}

/** What a rotation keeps for a concurrent refresh: who asked, from where, when, and what they got. */
interface KeptAnswer extends Origin {
  clientId: string;
  /** When the rotation was, Unix seconds. */
  at?: number;
  answer: TokenAnswer;
}

/** Where a request came from: its address key (client-address.ts) and its address as Koa saw it. */
interface Origin {
  address: string;
  ip?: string;
}

/** How a presented token was found to come from the same installation. */
type SameBy = 'dpop_key' | 'address' | 'egress_range' | 'hosted_race';

/** The same installation (and how it was told), or why not. */
type Judgement = { how: SameBy; reason?: undefined } | { reason: string };

/** What the window needs. */
export interface RefreshReuseOptions {
  provider: Provider;
  redis: RedisClient;
  prefix: string;
  /** The window, seconds; 0 leaves oidc-provider's strict rotation as it is. */
  seconds: number;
  /** A hosted client's race window, seconds (HOSTED_REFRESH_RACE); at most the window. */
  hostedRaceSeconds: number;
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
  hostedRaceSeconds,
  audit,
  grantTtlSeconds,
}: RefreshReuseOptions): void {
  if (seconds <= 0) return;
  const handlers = grantHandlers(provider);
  const original = handlers.get('refresh_token');
  if (!original) throw new Error('oidc-provider has no refresh_token grant to wrap');
  const raceWaitMs = Math.min(seconds * 1000, 10_000);
  const keptSeconds = Math.min(seconds, KEPT_SECONDS) + 1;
  const raceSeconds = Math.min(hostedRaceSeconds, seconds);

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
  const noteReuse = async (ctx: KoaContextWithOIDC, grantId: string, how: SameBy, rotatedAt: number) => {
    void audit.record('refresh_token_reuse_allowed', {
      requestId: ctx.state?.requestId as string | undefined,
      ip: ctx.ip,
      clientId: ctx.oidc.client?.clientId,
      accountId: ctx.oidc.entities.RefreshToken?.accountId,
      details: { grant_id: grantId, same_installation_by: how, rotated_seconds_ago: now() - rotatedAt },
    });
    await countReuse(redis, prefix, grantId, grantTtlSeconds);
  };

  /**
   * Whether an unbound token presented from `here` comes from the installation whose rotation came
   * from `last` at `rotatedAt`; `latest`: the token presented is the one that rotation replaced.
   */
  const judgeOrigin = async (
    ctx: KoaContextWithOIDC,
    last: Origin,
    here: Origin,
    rotatedAt: number,
    latest: boolean,
  ): Promise<Judgement> => {
    if (last.address === here.address) return { how: 'address' };
    const client = ctx.oidc.client!;
    if (!hasFixedHttpsCallbacks(client)) return { reason: 'from another address than its last refresh' };
    const ranges = await clientEgressRanges(redis, prefix, client.clientId);
    if (inEgressRanges(last.ip, ranges) && inEgressRanges(here.ip, ranges)) return { how: 'egress_range' };
    if (!latest) return { reason: 'a generation older, from another address than its last refresh' };
    if (now() - rotatedAt > raceSeconds)
      return { reason: 'from another address than its last refresh, after the race window' };
    return { how: 'hosted_race' };
  };

  /** Whether a rotated token presented in `ctx` from `here` is the same installation's, or why not. */
  const judge = async (
    ctx: KoaContextWithOIDC,
    { token, consumedAt }: RotatedRefresh,
    here: Origin,
    lineage: RefreshLineage | undefined,
  ): Promise<Judgement> => {
    if (token.clientId !== ctx.oidc.client!.clientId) return { reason: 'presented by another client' };
    if (now() - consumedAt > seconds || !lineage) return { reason: 'outside the reuse window' };
    if (typeof token.jkt === 'string') {
      const proof = await requestDpopProof(provider, ctx);
      return proof?.thumbprint === token.jkt
        ? { how: 'dpop_key' }
        : { reason: 'without a proof of its DPoP key' };
    }
    const latest = lineage.previous === token.jti || lineage.token === token.jti;
    return judgeOrigin(ctx, lineage, here, consumedAt, latest);
  };

  /** Answers a rotated token from the same installation with the grant's current refresh token. */
  const answerRotated = async (ctx: KoaContextWithOIDC, rotated: RotatedRefresh, here: Origin) => {
    const grantId = rotated.token.grantId;
    for (let attempt = 1, waited = 0; ; attempt++) {
      const lineage = grantId ? await currentRefresh(redis, prefix, grantId) : undefined;
      // Rotated a moment ago by a concurrent request that has not recorded its rotation yet (on a
      // Redis Cluster the consumption is seen before the race is decided): wait for it.
      const unrecorded = !lineage || lineage.token === rotated.token.jti;
      if (grantId && unrecorded && now() - rotated.consumedAt <= raceWaitMs / 1000 && waited < raceWaitMs) {
        await sleep(POLL_MS);
        waited += POLL_MS;
        attempt--;
        continue;
      }
      const judgement = await judge(ctx, rotated, here, lineage);
      if (judgement.reason !== undefined || !lineage) return theft(grantId, judgement.reason ?? 'no grant');
      answerWithoutRotation(ctx);
      ctx.oidc.params!.refresh_token = lineage.token;
      watchRotation(ctx, lineage.token);
      try {
        await original(ctx);
        return await noteReuse(ctx, grantId!, judgement.how, rotated.consumedAt);
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
  const answerConcurrent = async (ctx: KoaContextWithOIDC, err: ConcurrentRefresh, here: Origin) => {
    const clientId = ctx.oidc.client!.clientId;
    // oidc-provider checked the DPoP key of a bound token before consuming it.
    const bound = typeof ctx.oidc.entities.RefreshToken?.jkt === 'string';
    const key = refreshAnswerKey(prefix, err.tokenId);
    for (let waited = 0; waited <= raceWaitMs; waited += POLL_MS) {
      const json = await redis.get(key);
      if (json) {
        const kept = JSON.parse(json) as KeptAnswer;
        if (kept.clientId !== clientId) return theft(err.grantId, 'presented by another client');
        const judgement: Judgement = bound
          ? { how: 'dpop_key' }
          : await judgeOrigin(ctx, kept, here, kept.at ?? now(), true);
        if (judgement.reason !== undefined) return theft(err.grantId, judgement.reason);
        const successor = kept.answer.refresh_token
          ? await provider.RefreshToken.find(kept.answer.refresh_token, { ignoreExpiration: true })
          : undefined;
        if (!successor) return theft(err.grantId, 'the grant was revoked meanwhile');
        ctx.body = kept.answer;
        return noteReuse(ctx, err.grantId!, judgement.how, kept.at ?? now());
      }
      await sleep(POLL_MS);
    }
    // The winner is slow (a busy machine), which is no evidence of theft: the client tries again.
    throw refreshBusy();
  };

  handlers.set('refresh_token', async function refreshWithReuseWindow(ctx: KoaContextWithOIDC) {
    const presented = (ctx.oidc.params?.refresh_token as string | undefined) ?? '';
    const here: Origin = { address: addressKey(ctx.ip), ip: ctx.ip };
    watchRotation(ctx, presented);
    try {
      await original(ctx);
    } catch (err) {
      if (err instanceof RotatedRefresh) return answerRotated(ctx, err, here);
      if (err instanceof ConcurrentRefresh) return answerConcurrent(ctx, err, here);
      throw err;
    }
    const rotated = (ctx.oidc.entities as { RotatedRefreshToken?: { grantId?: string } }).RotatedRefreshToken;
    const answer = ctx.body as TokenAnswer | undefined;
    if (!rotated?.grantId || !answer?.refresh_token || answer.refresh_token === presented) return;
    const kept: KeptAnswer = { clientId: ctx.oidc.client!.clientId, ...here, at: now(), answer };
    const lineage = { token: answer.refresh_token, ...here, previous: presented };
    await Promise.all([
      recordRotation(redis, prefix, rotated.grantId, lineage, seconds),
      redis.set(refreshAnswerKey(prefix, presented), JSON.stringify(kept), 'EX', keptSeconds),
    ]);
  });
}

const now = () => Math.floor(Date.now() / 1000);
