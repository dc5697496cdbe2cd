/**
 * The login, consent and error pages (DESIGN.md §5). Every value shown comes from a client or a
 * user, so everything goes through the escaping {@link html} template.
 */
import { isLoopbackHost } from '@school/shared';
import { findScope } from '@school/shared';
import { html, layout, type SafeHtml } from './html.js';

/** What the pages say about the app that is asking. */
export interface ClientView {
  /** The name the client registered; `undefined` when it gave none. */
  name?: string;
  clientId: string;
  /** The redirect URI of this request. */
  redirectUri: string;
  /** True for an operator-created integration; false for a self-registered app. */
  registeredIntegration: boolean;
  /**
   * For a Client ID Metadata Document client: the host of its client_id URL, which this server
   * fetched the document from over verified https (the one thing about the app that is verified).
   */
  verifiedHost?: string;
}

function clientLabel(c: ClientView): SafeHtml {
  const name = c.name?.trim() || 'An unnamed app';
  return c.registeredIntegration
    ? html`<strong><bdi>${name}</bdi></strong>`
    : html`<strong><bdi>${name}</bdi></strong>
        <span class="tag" title="The app chose this name itself; it has not been verified"
          >self-declared name</span
        >${verifiedOrigin(c)}`;
}

/** " from app.example (verified)": where a metadata-document client's description was fetched from. */
function verifiedOrigin(c: ClientView): SafeHtml | string {
  if (!c.verifiedHost) return '';
  return html` from <strong class="verified-host"><bdi>${c.verifiedHost}</bdi></strong>
    <span class="tag" title="This server fetched the app's description from this address over https"
      >verified address</span
    >`;
}

/** Where the browser goes afterwards, in words: "an app on this computer (127.0.0.1, port 5173)". */
export function destinationText(redirectUri: string): string {
  const url = new URL(redirectUri);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return isLoopbackHost(url.hostname)
    ? `an app on this computer (${url.hostname}, port ${port})`
    : `${url.protocol}//${url.host}`;
}

/** The sign-in form. */
export function loginPage(p: {
  action: string;
  csrf: string;
  client: ClientView;
  email?: string;
  error?: string;
}): string {
  return layout(
    'Sign in',
    html`<h1>Sign in to your school</h1>
      <p>${clientLabel(p.client)} wants to connect to your school account.</p>
      ${p.error ? html`<p class="error" role="alert">${p.error}</p>` : ''}
      <form method="post" action="${p.action}">
        <input type="hidden" name="csrf" value="${p.csrf}" />
        <label for="email">Email</label>
        <input
          id="email"
          type="email"
          name="email"
          autocomplete="username"
          required
          value="${p.email ?? ''}"
          autofocus
        />
        <label for="password">Password</label>
        <input id="password" type="password" name="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
      <p class="note">
        After you sign in you will be asked what to allow. You will then be sent to
        ${destinationText(p.client.redirectUri)}.
      </p>`,
  );
}

/** The consent form: who asks, where it sends you, and each scope in plain words. */
export function consentPage(p: {
  confirmAction: string;
  abortAction: string;
  csrf: string;
  client: ClientView;
  scopes: readonly string[];
  accountEmail?: string;
}): string {
  const items = p.scopes.map((s) => {
    const def = findScope(s);
    return html`<li>${def?.consentText ?? s} <code>${s}</code></li>`;
  });
  return layout(
    'Allow access?',
    html`<h1>Allow access to your school?</h1>
      <p>
        ${clientLabel(p.client)} is asking for
        access${p.accountEmail ? html` to the account <strong>${p.accountEmail}</strong>` : ''}.
      </p>
      <p>
        If you allow it, you will be sent back to <strong>${destinationText(p.client.redirectUri)}</strong>.
      </p>
      <p>It will be able to:</p>
      <ul class="scopes">
        ${items}
      </ul>
      <div class="actions">
        <form method="post" action="${p.confirmAction}">
          <input type="hidden" name="csrf" value="${p.csrf}" /><button type="submit">Allow</button>
        </form>
        <form method="post" action="${p.abortAction}">
          <input type="hidden" name="csrf" value="${p.csrf}" /><button type="submit" class="secondary">
            Deny
          </button>
        </form>
      </div>
      <p class="note">
        Only allow apps you trust. You can revoke access later by revoking the app's tokens.
      </p>`,
  );
}

/** A page for what cannot be sent back to the app: an expired page, an unknown client, a bad redirect. */
export function errorPage(p: { title: string; message: string; code?: string }): string {
  return layout(
    p.title,
    html`<h1>${p.title}</h1>
      <p>${p.message}</p>
      ${p.code ? html`<p class="note">Error code: <code>${p.code}</code></p>` : ''}`,
  );
}
