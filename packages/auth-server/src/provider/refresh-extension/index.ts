/**
 * The refresh-token extension: what this server adds to oidc-provider's `refresh_token` grant, in one
 * wrapper around its handler, as named steps in this order:
 *
 * 1. check the resource ({@link requestedResource}, resource.ts): a `resource` the token may not have
 *    is refused before anything is touched (oidc-provider would burn the token first);
 * 2. read the presented token ({@link readPresented}), through the model as oidc-provider reads it;
 * 3. answer the same installation's reuse ({@link answerReuse}): a rotated token presented again within
 *    the reuse window (REFRESH_REUSE_GRACE, docs/decisions.md "Refresh-token reuse window") by the
 *    installation the grant's refreshes come from (same-installation.ts) gets the grant's current
 *    refresh token and a fresh access token; anyone else ends the grant (theft);
 * 4. answer a race's loser ({@link answerLoser}): a request that presents a token another request is
 *    rotating right now gets that request's answer, under the same rules (a hosted connector's workers
 *    racing from several addresses: HOSTED_REFRESH_RACE);
 * 5. rotate and record ({@link rotateAndRecord}): the one request that claims the token
 *    (storage/refresh-race.ts) hands it over to oidc-provider, which rotates it (rotation.ts), then
 *    records the rotation (storage/refresh-lineage.ts) and pushes its answer to the requests waiting;
 * 6. hand over to oidc-provider ({@link handOver}): its own handler runs on the token, checks the DPoP
 *    proof, the grant and the account, and issues the tokens.
 *
 * A rotated token presented again is thus seen by this wrapper, which reads it, before oidc-provider
 * (which would end the grant at once), and only one request at a time ever hands a token over for
 * rotation, so oidc-provider's consume (storage/redis-adapter.ts, atomic) never meets a second one.
 * With the window at 0 only step 1 runs: oidc-provider's strict rotation is left as it is.
 *
 * An answered reuse is audited (`refresh_token_reuse_allowed`) and counted for Connected apps. Theft
 * deletes the grant and every token of it (each instance then finds nothing; the revoked access
 * tokens are published to the resource APIs), answers `invalid_grant`, and the grant.error event
 * audits it as `refresh_token_reuse` (audit/provider-events.ts) with the reason.
 *
 * oidc-provider has no hook around a grant, so its handler is wrapped where it keeps it
 * (oidc-internals.ts).
 */
import type { RedisClient } from '@school/shared';
import { errors, type KoaContextWithOIDC, type Provider, type RefreshToken } from 'oidc-provider';
import type { AuditLog } from '../../audit/audit-log.js';
import { addressKey } from '../../client-address.js';
import { awaitAnswer, claimRefresh, publishAnswer, type KeptAnswer } from '../../storage/refresh-race.js';
import { countReuse, currentRefresh, recordRotation } from '../../storage/refresh-lineage.js';
import { grantHandlers } from '../oidc-internals.js';
import { checkResourceGranted, requestedResource } from './resource.js';
import { answerWithoutRotation, rotates } from './rotation.js';
import { judgeKey, judgeOrigin, type Judgement, type Origin, type SameBy } from './same-installation.js';

/** What the extension needs. */
export interface RefreshExtensionOptions {
  provider: Provider;
  redis: RedisClient;
  prefix: string;
  /** Whether `indicator` is the API's resource identifier. */
  isApiResource: (indicator: string) => boolean;
  /** The reuse window, seconds (REFRESH_REUSE_GRACE); 0 leaves oidc-provider's strict rotation. */
  reuseSeconds: number;
  /** A hosted client's race window, seconds (HOSTED_REFRESH_RACE); at most the reuse window. */
  hostedRaceSeconds: number;
  audit: AuditLog;
  /** How long a reuse is remembered for Connected apps, seconds (the grant's longest life). */
  grantTtlSeconds: number;
}

/** How long a claim, and the answer given under it, are kept, seconds (at most the window). */
const KEPT_SECONDS = 30;
/** How often a request starts again when the request it waited for answered nothing. */
const ATTEMPTS = 3;

const now = () => Math.floor(Date.now() / 1000);

/** Wraps oidc-provider's refresh_token grant with the extension's steps (top of this file). */
export function installRefreshExtension(options: RefreshExtensionOptions): void {
  const { provider, redis, prefix, isApiResource, reuseSeconds: window, audit } = options;
  const handlers = grantHandlers(provider);
  const handOver = handlers.get('refresh_token');
  if (!handOver) throw new Error('oidc-provider has no refresh_token grant to wrap');
  const raceWaitMs = Math.min(window * 1000, 10_000);
  const keptSeconds = Math.min(window, KEPT_SECONDS) + 1;
  const rules = { redis, prefix, raceSeconds: Math.min(options.hostedRaceSeconds, window) };

  /** Step 2: the presented token as the model reads it (consumed ones included), or none. */
  const readPresented = (value: string): Promise<RefreshToken | undefined> =>
    value ? provider.RefreshToken.find(value, { ignoreExpiration: true }) : Promise.resolve(undefined);

  /** Ends a grant whose rotated token was presented by someone else, and refuses. */
  const theft = async (grantId: string | undefined, reason: string): Promise<never> => {
    if (grantId) {
      // Tokens first (published to the resource APIs), then the Grant: a token a concurrent request
      // may still be saving under it is checked against its grant, and so is dead too.
      await provider.Grant.adapter.revokeByGrantId(grantId);
      await provider.Grant.adapter.destroy(grantId);
    }
    throw new errors.InvalidGrant(`refresh token already used (${reason}); grant revoked`);
  };

  /**
   * `503 temporarily_unavailable`: the request that holds the token has not answered yet (a slow
   * request is no evidence of theft); the client retries.
   */
  const refreshBusy = () =>
    Object.assign(
      new errors.TemporarilyUnavailable('a concurrent refresh of this token is still running; retry shortly'),
      { status: 503, statusCode: 503, expose: true },
    );

  /** Records an answered reuse: the audit event and the Connected apps count. */
  const noteReuse = async (ctx: KoaContextWithOIDC, token: RefreshToken, how: SameBy, rotatedAt: number) => {
    void audit.record('refresh_token_reuse_allowed', {
      requestId: ctx.state?.requestId as string | undefined,
      ip: ctx.ip,
      clientId: ctx.oidc.client?.clientId,
      accountId: token.accountId,
      details: { grant_id: token.grantId, same_installation_by: how, rotated_seconds_ago: now() - rotatedAt },
    });
    await countReuse(redis, prefix, token.grantId!, options.grantTtlSeconds);
  };

  /**
   * Steps 5 and 6: claims `tokenId` and hands it over to oidc-provider, which rotates it (or, with
   * `keep`, answers with it as it is); records the rotation and pushes the answer to the requests
   * waiting for it. 'lost': another request holds the claim.
   */
  const rotateAndRecord = async (
    ctx: KoaContextWithOIDC,
    tokenId: string,
    here: Origin,
    keep = false,
  ): Promise<'answered' | 'lost'> => {
    if (!(await claimRefresh(redis, prefix, tokenId, keptSeconds))) return 'lost';
    const consumed = () => !!(ctx.oidc.entities as { RotatedRefreshToken?: unknown }).RotatedRefreshToken;
    let answered = false;
    try {
      if (keep) {
        // The lineage read a moment ago: hand over only a token still live (else the client retries).
        const current = await readPresented(tokenId);
        if (!current || current.consumed) throw refreshBusy();
        answerWithoutRotation(ctx);
      }
      ctx.oidc.params!.refresh_token = tokenId;
      await handOver(ctx);
      answered = true;
    } finally {
      // Refused or failed: the requests waiting try again; the claim stays only on a consumed token.
      if (!answered) await publishAnswer(redis, prefix, tokenId, { retry: true }, keptSeconds, !consumed());
    }
    const answer = ctx.body as KeptAnswer['answer'];
    const kept: KeptAnswer = { clientId: ctx.oidc.client!.clientId, ...here, at: now(), answer };
    const grantId = ctx.oidc.entities.RefreshToken?.grantId;
    const successor = answer.refresh_token;
    const rotated = consumed() && grantId && successor && successor !== tokenId;
    await Promise.all([
      rotated &&
        recordRotation(redis, prefix, grantId, { token: successor, ...here, previous: tokenId }, window),
      publishAnswer(redis, prefix, tokenId, kept, keptSeconds, !consumed()),
    ]);
    return 'answered';
  };

  /**
   * Step 4: answers `token` with what the request holding `heldId` (the token itself, or the grant's
   * current one) answered. `judged`: how the request was already found to be the same installation.
   * 'retry': that request answered nothing.
   */
  const answerLoser = async (
    ctx: KoaContextWithOIDC,
    token: RefreshToken,
    heldId: string,
    here: Origin,
    judged?: SameBy,
  ): Promise<'answered' | 'retry'> => {
    const kept = await awaitAnswer(redis, prefix, heldId, raceWaitMs);
    // The holder is slow (a busy machine), which is no evidence of theft: the client tries again.
    if (!kept) throw refreshBusy();
    if ('retry' in kept) return 'retry';
    if (kept.clientId !== ctx.oidc.client!.clientId)
      return theft(token.grantId, 'presented by another client');
    let judgement: Judgement = { how: judged ?? 'dpop_key' };
    if (!judged)
      judgement =
        typeof token.jkt === 'string'
          ? await judgeKey(ctx, token)
          : await judgeOrigin(rules, ctx, kept, here, kept.at, true);
    if (judgement.reason !== undefined) return theft(token.grantId, judgement.reason);
    const successor = await readPresented(kept.answer.refresh_token ?? '');
    if (!successor) return theft(token.grantId, 'the grant was revoked meanwhile');
    ctx.body = kept.answer;
    await noteReuse(ctx, token, judgement.how, kept.at);
    return 'answered';
  };

  /**
   * Step 3: a rotated `token` presented again. From the same installation, within the window, it is
   * answered with the grant's current refresh token; rotated a moment ago by a request that has not
   * answered yet, it waits for that answer (step 4); anything else is theft.
   */
  const answerReuse = async (ctx: KoaContextWithOIDC, token: RefreshToken, here: Origin): Promise<void> => {
    const grantId = token.grantId;
    const rotatedAt = Number(token.consumed);
    if (token.clientId !== ctx.oidc.client!.clientId) return theft(grantId, 'presented by another client');
    if (now() - rotatedAt > window || !grantId) return theft(grantId, 'outside the reuse window');
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const lineage = await currentRefresh(redis, prefix, grantId);
      if (!lineage || lineage.token === token.jti) {
        // Its rotation is not recorded yet: the request rotating it is still running.
        if (now() - rotatedAt > raceWaitMs / 1000) return theft(grantId, 'outside the reuse window');
        if ((await answerLoser(ctx, token, token.jti, here)) === 'answered') return;
        continue;
      }
      const latest = lineage.previous === token.jti;
      const judgement =
        typeof token.jkt === 'string'
          ? await judgeKey(ctx, token)
          : await judgeOrigin(rules, ctx, lineage, here, rotatedAt, latest);
      if (judgement.reason !== undefined) return theft(grantId, judgement.reason);
      // The current token is claimed for this answer, so no request rotates it meanwhile; when another
      // request holds it (refreshing it right now), its answer is the grant's current state too.
      if ((await rotateAndRecord(ctx, lineage.token, here, true)) === 'answered')
        return noteReuse(ctx, token, judgement.how, rotatedAt);
      if ((await answerLoser(ctx, token, lineage.token, here, judgement.how)) === 'answered') return;
    }
    throw refreshBusy();
  };

  handlers.set('refresh_token', async function refreshExtension(ctx: KoaContextWithOIDC) {
    const resource = requestedResource(ctx, isApiResource);
    const presented = (ctx.oidc.params?.refresh_token as string | undefined) ?? '';
    // With the window at 0, strict rotation is oidc-provider's own: only a resource needs the token.
    if (window <= 0 && resource === undefined) return handOver(ctx);
    let token = await readPresented(presented);
    checkResourceGranted(ctx, token, resource);
    if (window <= 0) return handOver(ctx);
    const here: Origin = { address: addressKey(ctx.ip), ip: ctx.ip };
    const client = ctx.oidc.client!;
    for (let attempt = 1; token && attempt <= ATTEMPTS; attempt++) {
      if (token.consumed) return answerReuse(ctx, token, here);
      // Nothing to race for: oidc-provider refuses another client's token, and keeps an unrotated one.
      if (token.clientId !== client.clientId || !rotates(token, client)) return handOver(ctx);
      if ((await rotateAndRecord(ctx, presented, here)) === 'answered') return;
      if ((await answerLoser(ctx, token, presented, here)) === 'answered') return;
      token = await readPresented(presented);
    }
    if (!token) return handOver(ctx); // oidc-provider answers for a token it cannot find
    throw refreshBusy();
  });
}
