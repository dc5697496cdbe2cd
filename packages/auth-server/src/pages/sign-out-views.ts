/**
 * oidc-provider's two sign-out pages in this service's look: the question, around oidc-provider's own
 * form (its action and xsrf token), and the page after (provider/sign-out-pages.ts serves them).
 */
import { ACCOUNT_PATH } from '@school/shared';
import { html, layout, type SafeHtml } from './html.js';

/** oidc-provider's sign-out question (`logoutSource`), around its own form (`form`, its xsrf token). */
export function signOutPage(p: { form: SafeHtml; accountEmail?: string }): string {
  return layout(
    'Sign out?',
    html`<h1>Sign out?</h1>
      ${
        p.accountEmail
          ? html`<p>
              You are signed in as <strong><bdi>${p.accountEmail}</bdi></strong
              >.
            </p>`
          : ''
      }
      <p>
        Signing out ends your session in this browser. Apps you allowed keep their access; take it back on
        <a href="${ACCOUNT_PATH}/apps">Connected apps</a>.
      </p>
      ${p.form}
      <div class="actions">
        <button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
        <button type="submit" form="op.logoutForm" class="secondary">Stay signed in</button>
      </div>`,
  );
}

/** oidc-provider's page after a sign-out (`postLogoutSuccessSource`). */
export function signedOutPage(): string {
  return layout(
    'Signed out',
    html`<h1>You are signed out</h1>
      <p>Nobody can use your session in this browser any more. You can close this window.</p>
      <p><a href="${ACCOUNT_PATH}">Sign in again</a></p>`,
  );
}
