/**
 * Connected apps: one row per app the signed-in person has granted (their grants grouped by client,
 * storage/account-grants.ts), with what the page shows of it, and Revoke (a confirmation page
 * first, GET `apps/revoke?client_id=…`, whose form acts), which ends all of that
 * app's access and refresh tokens for this person (and only theirs) and is audited. A Revoke names
 * one of the person's apps, so an id that is not one (not printable ASCII, as every client id is,
 * or no grant of theirs) is refused with the page's error and no audit event: the audit log only
 * holds ids of real grants, never text a person typed. An app whose client cannot be loaded just now
 * is listed with its id alone, and can be revoked all the same (client-rows.ts).
 */
import type { RedisClient } from '@school/shared';
import type { Provider } from 'oidc-provider';
import { z } from 'zod';
import type { AuditLog } from '../audit/audit-log.js';
import { ACCOUNT_CONSOLE_CLIENT_ID, clientKind } from '../clients/client-kind.js';
import { accountGrants, endAccountAccess } from '../storage/account-grants.js';
import { grantsLastUsed } from '../storage/grant-usage.js';
import { scopesLastUsed } from '../storage/scope-usage.js';
import { grantsReused } from '../storage/refresh-lineage.js';
import { sendPage } from '../pages/html.js';
import type { CsrfTokens } from '../pages/csrf.js';
import type { AccountStep } from './signed-in.js';
import { accountPath } from './signed-in.js';
import { clientForRow, unavailableApp } from './client-rows.js';
import type { OneTimeNotices } from './one-time-notice.js';
import { connectedAppsPage, revokeConfirmPage, type ConnectedApp } from './views.js';

/** The Revoke form. */
export const revokeForm = z.object({ csrf: z.string(), client_id: z.string().min(1).max(2000) });

/** What every client id is: printable ASCII (generated ids, and the URLs of metadata documents). */
const CLIENT_ID = /^[\x21-\x7e]+$/;

/** What the steps need. */
export interface ConnectedAppsDeps {
  provider: Provider;
  redis: RedisClient;
  prefix: string;
  audit: AuditLog;
}

/**
 * The confirmation "Access of <name> has ended" is shown only for a Revoke this session just made:
 * the redirect after it carries an HMAC of the session and the client id. Without it, a link to
 * `…/apps?revoked=<any client>` would put a name an app chose into our own confirmation sentence.
 */
const revokedProof = (sessionUid: string, clientId: string) => `revoked:${sessionUid}:${clientId}`;

/** The apps `accountId` has granted, newest first. */
export async function connectedApps(
  { provider, redis, prefix }: ConnectedAppsDeps,
  accountId: string,
): Promise<ConnectedApp[]> {
  // Grants past the end the admin chose are gone for every purpose, though Redis may still hold them.
  const now = Math.floor(Date.now() / 1000);
  const grants = (await accountGrants(redis, prefix, accountId)).filter(
    (g) => g.clientId !== ACCOUNT_CONSOLE_CLIENT_ID && (g.expiresAt === undefined || g.expiresAt > now),
  );
  const grantIds = grants.map((g) => g.grantId);
  const [used, reused, scopeUses] = await Promise.all([
    grantsLastUsed(redis, prefix, grantIds),
    grantsReused(redis, prefix, grantIds),
    scopesLastUsed(redis, prefix, grantIds),
  ]);
  const byClient = new Map<string, ConnectedApp>();
  for (const [i, g] of grants.entries()) {
    let app = byClient.get(g.clientId);
    if (!app) {
      const found = await clientForRow(provider, g.clientId);
      if (found.status === 'gone') continue; // removed meanwhile: its grants end with it
      const { client } = found.status === 'found' ? found : { client: undefined };
      app = {
        ...(client
          ? { clientId: g.clientId, name: client.clientName, kind: clientKind(client) }
          : unavailableApp(g.clientId)),
        redirectUris: [...(client?.redirectUris ?? [])],
        scopes: [],
        firstAuthorized: g.issuedAt,
        scopeUses: {},
      };
      byClient.set(g.clientId, app);
    }
    app.scopes = [...new Set([...app.scopes, ...g.scopes])];
    app.firstAuthorized = Math.min(app.firstAuthorized, g.issuedAt);
    if (g.expiresAt !== undefined) app.expiresAt = Math.max(app.expiresAt ?? 0, g.expiresAt);
    for (const [scope, at] of Object.entries(scopeUses[i] ?? {})) {
      if (g.scopes.includes(scope)) app.scopeUses[scope] = Math.max(app.scopeUses[scope] ?? 0, at);
    }
    const last = used[i];
    if (last !== undefined && (app.lastUsed === undefined || last > app.lastUsed)) app.lastUsed = last;
    const reuse = reused[i];
    if (reuse)
      app.reuse = {
        count: (app.reuse?.count ?? 0) + reuse.count,
        last: Math.max(app.reuse?.last ?? 0, reuse.last),
      };
  }
  return [...byClient.values()].sort((a, b) => b.firstAuthorized - a.firstAuthorized);
}

/** The page and the Revoke step. */
export function connectedAppsSteps(
  deps: ConnectedAppsDeps,
  proofs: CsrfTokens,
  notices: OneTimeNotices,
): {
  show: AccountStep;
  confirm: AccountStep;
  revoke: AccountStep<{ form: z.infer<typeof revokeForm> }>;
} {
  return {
    confirm: async function confirmRevoke(ctx) {
      const { account, csrf } = ctx.state;
      const clientId = typeof ctx.query.client_id === 'string' ? ctx.query.client_id : '';
      const app = (await connectedApps(deps, account._id)).find((a) => a.clientId === clientId);
      if (!app) {
        const apps = await connectedApps(deps, account._id);
        const error = 'That app has no access to your account to end: nothing to revoke.';
        return sendPage(ctx, 404, connectedAppsPage({ account, csrf, apps, error }));
      }
      sendPage(ctx, 200, revokeConfirmPage({ account, csrf, app }));
    },
    show: async function showConnectedApps(ctx) {
      const { account, csrf } = ctx.state;
      // The query names the client just revoked, with the proof that this session revoked it.
      const named = typeof ctx.query.revoked === 'string' ? ctx.query.revoked : undefined;
      const revokedId =
        named && proofs.verify(revokedProof(ctx.state.sessionUid, named), ctx.query.done) ? named : undefined;
      const revokedClient = revokedId ? await clientForRow(deps.provider, revokedId) : undefined;
      const revokedName = revokedClient?.status === 'found' ? revokedClient.client.clientName : undefined;
      const revoked = revokedId ? (revokedName ?? 'the app') : undefined;
      const apps = await connectedApps(deps, account._id);
      // What Drop unused scopes just did, shown once.
      const done = (await notices.take<{ done: string }>(ctx.state.sessionUid, ctx.query.notice))?.done;
      sendPage(ctx, 200, connectedAppsPage({ account, csrf, apps, revoked, done }));
    },
    revoke: async function revokeApp(ctx) {
      const { account, form, csrf } = ctx.state;
      const ended = CLIENT_ID.test(form.client_id)
        ? await endAccountAccess(deps.redis, deps.prefix, account._id, form.client_id)
        : { grants: 0, tokens: 0 };
      if (ended.grants === 0) {
        const apps = await connectedApps(deps, account._id);
        const error = 'That app has no access to your account to end: nothing was revoked.';
        return sendPage(ctx, 404, connectedAppsPage({ account, csrf, apps, error }));
      }
      void deps.audit.record('grant_revoked', {
        requestId: ctx.state.requestId,
        ip: ctx.ip,
        accountId: account._id,
        clientId: form.client_id,
        details: { by: 'account', ...ended },
      });
      ctx.status = 303;
      const done = proofs.issue(revokedProof(ctx.state.sessionUid, form.client_id));
      ctx.redirect(
        `${accountPath('apps')}?${new URLSearchParams({ revoked: form.client_id, done }).toString()}`,
      );
    },
  };
}
