/**
 * oidc-provider's two sign-out pages (RP-Initiated Logout at `end_session_endpoint`) in this
 * service's look and under its page CSP: the question, around oidc-provider's own form (its action
 * and xsrf token), and the page after. Signing out ends the login session only: every app keeps the
 * access it was given (its grants persist logout: provider/configuration.ts `expiresWithSession`).
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { AccountStore } from '../accounts/account-store.js';
import { SafeHtml, pageCsp } from '../pages/html.js';
import { signOutPage, signedOutPage } from '../pages/sign-out-views.js';

function asPage(ctx: KoaContextWithOIDC, body: string, formTargets: string[] = []): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', pageCsp(formTargets));
  ctx.type = 'text/html';
  ctx.body = body;
}

/** `features.rpInitiatedLogout.logoutSource` and `postLogoutSuccessSource`. */
export function signOutSources(accounts: AccountStore) {
  return {
    async logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
      const accountId = ctx.oidc.session?.accountId;
      const account = accountId ? await accounts.findAccount(accountId) : undefined;
      const claims = account ? await account.claims('userinfo', 'email', {}, []) : undefined;
      // After the form, the browser may be sent on to the client's registered post-logout URI.
      const next = (ctx.oidc.session?.state as { postLogoutRedirectUri?: string } | undefined)
        ?.postLogoutRedirectUri;
      const target = next ? URL.parse(next)?.origin : undefined;
      asPage(
        ctx,
        signOutPage({
          form: new SafeHtml(form),
          accountEmail: typeof claims?.email === 'string' ? claims.email : undefined,
        }),
        target ? [target] : [],
      );
    },
    postLogoutSuccessSource(ctx: KoaContextWithOIDC): void {
      asPage(ctx, signedOutPage());
    },
  };
}
