/**
 * The login, consent and error pages (DESIGN.md §5). Every value shown comes from a client or a
 * user, so everything goes through the escaping {@link html} template, and every string a client
 * chose (its name, its redirect host) or a user typed is isolated in `<bdi>`, so a right-to-left
 * override inside it cannot reverse the page's own words around it.
 *
 * A self-registered app's name is the app's claim: it is shown in normal type, quoted, and the
 * warning that says so is in visible words (a tooltip cannot be read on a phone) and no quieter than
 * the name. Scopes that let the app change data are listed apart, under their own heading.
 */
import { isLoopbackHost } from '@school/shared';
import { findScope } from '@school/shared';
import { html, layout, SafeHtml } from './html.js';

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

/** Who is asking, as the start of a sentence. */
function clientLabel(c: ClientView): SafeHtml {
  const name = c.name?.trim();
  if (c.registeredIntegration)
    return html`<strong><bdi>${name || 'An integration'}</bdi></strong
      >, an integration registered by your school,`;
  const who = name ? html`An app calling itself <q><bdi>${name}</bdi></q>` : html`An app without a name`;
  return html`${who}${verifiedOrigin(c)}`;
}

/** " from app.example (verified address)": where a metadata-document client's description was fetched. */
function verifiedOrigin(c: ClientView): SafeHtml | '' {
  if (!c.verifiedHost) return '';
  return html` from <strong class="verified-host"><bdi>${c.verifiedHost}</bdi></strong>
    <span class="tag">verified address</span>`;
}

/** For a self-registered app: the visible warning that its name is its own claim. */
function selfDeclaredWarning(c: ClientView): SafeHtml | '' {
  if (c.registeredIntegration) return '';
  const name = c.name?.trim();
  const whence = c.verifiedHost
    ? html`the app describes itself at <strong><bdi>${c.verifiedHost}</bdi></strong
        >, an address this server checked, but the name is whatever that site chose.`
    : 'the app registered itself and chose it, and your school has not checked it.';
  return html`<p class="warning">
    <strong>Check that you started this app.</strong>
    ${name ? html`<q><bdi>${name}</bdi></q> is a self-declared name:` : 'It has no name:'} ${whence} Anyone
    can use any name.
  </p>`;
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
      ${selfDeclaredWarning(p.client)} ${p.error ? html`<p class="error" role="alert">${p.error}</p>` : ''}
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
        <bdi>${destinationText(p.client.redirectUri)}</bdi>.
      </p>`,
  );
}

/** The consent form: who asks, where it sends you, and each scope in plain words. */
export function consentPage(p: {
  confirmAction: string;
  abortAction: string;
  /** Where "Not you?" posts: ends the remembered session and starts again at the sign-in page. */
  switchAction?: string;
  csrf: string;
  client: ClientView;
  scopes: readonly string[];
  accountEmail?: string;
}): string {
  const item = (s: string) => html`<li>${findScope(s)?.consentText ?? s} <code>${s}</code></li>`;
  const changes = p.scopes.filter((s) => findScope(s)?.changesData);
  const reads = p.scopes.filter((s) => !findScope(s)?.changesData);
  return layout(
    'Allow access?',
    html`<h1>Allow access to your school?</h1>
      <p>
        ${clientLabel(p.client)} is asking for
        access${p.accountEmail ? html` to the account <strong><bdi>${p.accountEmail}</bdi></strong>` : ''}.
      </p>
      ${selfDeclaredWarning(p.client)}
      <p>
        If you allow it, you will be sent back to
        <strong><bdi>${destinationText(p.client.redirectUri)}</bdi></strong
        >.
      </p>
      ${
        reads.length
          ? html`<p>It will be able to:</p>
              <ul class="scopes">
                ${reads.map(item)}
              </ul>`
          : ''
      }
      ${
        changes.length
          ? html`<p class="changes"><strong>It will also be able to change your school’s data:</strong></p>
              <ul class="scopes changes">
                ${changes.map(item)}
              </ul>`
          : ''
      }
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
      ${
        p.switchAction && p.accountEmail
          ? html`<form method="post" action="${p.switchAction}" class="switch">
              <input type="hidden" name="csrf" value="${p.csrf}" />
              Signed in as <bdi>${p.accountEmail}</bdi>.
              <button type="submit" class="link">Not you? Use another account</button>
            </form>`
          : ''
      }
      <p class="note">
        Only allow apps you trust. The app keeps this access until its tokens expire or are revoked; your
        school’s operator can take it back at any time (<code>school-auth clients delete</code>).
      </p>`,
  );
}

/** After Deny: nothing was shared; the browser goes back to the app only when the person says so. */
export function deniedPage(p: { client: ClientView; continueTo: string }): string {
  return layout(
    'Nothing was shared',
    html`<h1>Nothing was shared</h1>
      <p>You denied access. ${clientLabel(p.client)} has received nothing from your school account.</p>
      <p>
        <a class="button" href="${p.continueTo}">Tell the app and go back</a>
      </p>
      <p class="note">If the app has closed, you can close this page: nothing else needs to happen.</p>`,
  );
}

/** RP-initiated logout: the confirmation around oidc-provider's own form (its id is `op.logoutForm`). */
export function logoutPage(form: string): string {
  return layout(
    'Sign out?',
    html`<h1>Sign out of your school?</h1>
      <p>Apps you allowed keep the access you gave them; signing out only ends this browser's session.</p>
      ${new SafeHtml(form)}
      <div class="actions">
        <button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
        <button type="submit" form="op.logoutForm" class="secondary">Stay signed in</button>
      </div>`,
  );
}

/** After signing out. */
export function signedOutPage(): string {
  return layout(
    'Signed out',
    html`<h1>You are signed out</h1>
      <p>This browser no longer has a session with your school. You can close this page.</p>`,
  );
}

/** A page for what cannot be sent back to the app: an expired page, an unknown client, a bad redirect. */
export function errorPage(p: { title: string; message: string; code?: string; requestId?: string }): string {
  return layout(
    p.title,
    html`<h1>${p.title}</h1>
      <p>${p.message}</p>
      ${p.code ? html`<p class="note">Error code: <code>${p.code}</code></p>` : ''}
      ${
        p.requestId
          ? html`<p class="note">
              Reference for your school’s support: <code class="reference">${p.requestId}</code>
            </p>`
          : ''
      }`,
  );
}
