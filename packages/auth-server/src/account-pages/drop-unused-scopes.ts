/**
 * "Drop unused scopes" on Connected apps: narrows every grant the signed-in person holds for one app
 * to the API scopes the app has used (storage/scope-usage.ts) plus the sign-in scopes (`openid`,
 * `profile`, `email`, used at sign-in and userinfo, where no use is recorded). The grants are saved
 * narrower first, then their outstanding access tokens are ended (deleted and published on the
 * revocation feed), so no token still carries a dropped scope; the refresh tokens stay, and the app's
 * next refresh gets an access token with what is left. An app that has used no API scope yet loses
 * them all (it keeps the sign-in scopes); one that uses every scope it holds is refused, with nothing
 * changed. Audited as `grant_narrowed`; done, the step answers 303 to Connected apps, which says what
 * was dropped once (one-time-notice.ts).
 */
import { API_SCOPE_NAMES, findScope } from '@school/shared';
import { z } from 'zod';
import { removeScopes } from '../provider/grant-scopes.js';
import { accountGrants, endGrantAccessTokens } from '../storage/account-grants.js';
import { scopesLastUsed } from '../storage/scope-usage.js';
import { sendPage } from '../pages/html.js';
import { connectedApps, type ConnectedAppsDeps } from './connected-apps.js';
import { withNotice, type OneTimeNotices } from './one-time-notice.js';
import { accountPath, type AccountStep } from './signed-in.js';
import { connectedAppsPage } from './views.js';

/** Scopes in words: "read access to courses and write access to coupons". */
function scopeWords(scopes: string[]): string {
  const words = scopes.map((s) => {
    const d = findScope(s)?.description ?? s;
    return d.charAt(0).toLowerCase() + d.slice(1);
  });
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}` : (words[0] ?? '');
}

/** The form: which app. */
export const dropUnusedForm = z.object({ csrf: z.string(), client_id: z.string().min(1).max(2000) });

const API_SCOPES = new Set(API_SCOPE_NAMES);

/** What narrowing did: the scopes dropped and the access tokens ended; or why nothing was done. */
export type Narrowed = { dropped: string[]; tokens: number } | { refused: string };

/** Narrows `accountId`'s grants for `clientId` to the scopes used (see the module comment). */
export async function dropUnusedScopes(
  { provider, redis, prefix }: ConnectedAppsDeps,
  accountId: string,
  clientId: string,
): Promise<Narrowed> {
  const grants = (await accountGrants(redis, prefix, accountId)).filter((g) => g.clientId === clientId);
  if (!grants.length) return { refused: 'That app has no access to your account: nothing was changed.' };
  const uses = await scopesLastUsed(
    redis,
    prefix,
    grants.map((g) => g.grantId),
  );
  const used = new Set(uses.flatMap((u) => Object.keys(u)));
  const granted = new Set(grants.flatMap((g) => g.scopes));
  const unused = [...granted].filter((s) => API_SCOPES.has(s) && !used.has(s));
  if (!unused.length) return { refused: 'This app uses every scope it holds: nothing was changed.' };
  let tokens = 0;
  for (const { grantId } of grants)
    tokens += await narrowGrant({ provider, redis, prefix }, { grantId, accountId, clientId }, unused);
  return { dropped: unused, tokens };
}

/**
 * Takes `drop` out of the grant `grantId` of `accountId` for `clientId`, saves it narrower, then ends
 * its outstanding access tokens (the refresh token stays: the app's next refresh gets what is left).
 * Returns how many access tokens ended (0 when the grant is gone or is not that account's and app's).
 * Also the way a lowered role ceiling narrows live grants (role-ceilings.ts).
 */
export async function narrowGrant(
  { provider, redis, prefix }: Pick<ConnectedAppsDeps, 'provider' | 'redis' | 'prefix'>,
  { grantId, accountId, clientId }: { grantId: string; accountId: string; clientId: string },
  drop: readonly string[],
): Promise<number> {
  const grant = await provider.Grant.find(grantId);
  if (!grant || grant.accountId !== accountId || grant.clientId !== clientId) return 0;
  removeScopes(grant, drop);
  await grant.save();
  return endGrantAccessTokens(redis, prefix, grantId);
}

/** The step of `POST …/apps/drop-unused`: narrows, then back to Connected apps with what was done. */
export function dropUnusedStep(
  deps: ConnectedAppsDeps,
  notices: OneTimeNotices,
): AccountStep<{ form: z.infer<typeof dropUnusedForm> }> {
  return async function dropUnused(ctx) {
    const { account, form, csrf } = ctx.state;
    const result = await dropUnusedScopes(deps, account._id, form.client_id);
    const apps = await connectedApps(deps, account._id);
    if ('refused' in result)
      return sendPage(ctx, 409, connectedAppsPage({ account, csrf, apps, error: result.refused }));
    void deps.audit.record('grant_narrowed', {
      requestId: ctx.state.requestId,
      ip: ctx.ip,
      accountId: account._id,
      clientId: form.client_id,
      details: { dropped: result.dropped.join(' '), tokens: result.tokens },
    });
    const name = apps.find((a) => a.clientId === form.client_id)?.name ?? 'the app';
    const done = `${name} no longer has ${scopeWords(result.dropped)}. Its current access tokens were ended; it keeps the rest when it next refreshes.`;
    ctx.status = 303;
    ctx.redirect(await withNotice(notices, ctx.state.sessionUid, accountPath('apps'), { done }));
  };
}
