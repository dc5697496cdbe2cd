/**
 * The account pages, in the look of the login and consent pages (pages/html.ts): escaped
 * templates, no script, every client-supplied string isolated and labelled (pages/page-parts.ts).
 */
import { ACCOUNT_PATH, API_SCOPE_NAMES, OAUTH_ROUTES, findScope, scopesByCategory } from '@school/shared';
import type { AccountProfile } from '../accounts/account-store.js';
import { PASSWORD_MIN_LENGTH } from '../accounts/password-rule.js';
import { html, layout, type SafeHtml } from '../pages/html.js';
import { confirmForm } from './confirm-form.js';
import { formField } from '../pages/form-field.js';
import { appLabel, destinationText, type AppIdentity } from '../pages/page-parts.js';
import type { GrantReuse } from '../storage/refresh-lineage.js';
import { isAdmin } from './require-admin.js';

/** A Unix time or Date as a person reads it, in UTC: "2026-11-25 08:30 UTC". */
export function when(at: number | Date | undefined): string {
  if (at === undefined) return 'Not yet';
  const d = typeof at === 'number' ? new Date(at * 1000) : at;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The account pages, in the order of the navigation; `admin` pages are shown to the school's admins
 * only (require-admin.ts). A new page adds its row here and its route in router.ts.
 */
export const ACCOUNT_PAGES: readonly { page: string; label: string; admin: boolean }[] = [
  { page: 'apps', label: 'Connected apps', admin: false },
  { page: 'account', label: 'Your account', admin: false },
  { page: 'clients', label: 'All clients', admin: true },
  { page: 'activity', label: 'Activity', admin: true },
  { page: 'app-reviews', label: 'App reviews', admin: true },
  { page: 'staff', label: 'Staff accounts', admin: true },
  { page: 'register', label: 'Access register', admin: true },
  { page: 'roles', label: 'Roles', admin: true },
  { page: 'approvals', label: 'Approvals', admin: true },
];

/** The navigation every account page starts with: the pages `account` may use, and Sign out. */
export function accountNav(current: string, account: AccountProfile): SafeHtml {
  const link = (page: string, label: string) =>
    page === current
      ? html`<a href="${ACCOUNT_PATH}/${page}" aria-current="page"><strong>${label}</strong></a>`
      : html`<a href="${ACCOUNT_PATH}/${page}">${label}</a>`;
  const pages = ACCOUNT_PAGES.filter((p) => !p.admin || isAdmin(account));
  return html`<nav aria-label="Account pages">
    ${pages.map((p) => link(p.page, p.label))}
    <a href="${OAUTH_ROUTES.end_session}">Sign out</a>
  </nav>`;
}

/** Who is signed in, with "Not you?". */
function signedInAs(account: AccountProfile): SafeHtml {
  return html`<p class="note">
    Signed in as <bdi>${account.email}</bdi>. Not you?
    <a href="${OAUTH_ROUTES.end_session}">Sign out</a>
  </p>`;
}

/** The message at the top of a page after a form: what went wrong, or what was done. */
export function formNotice(n: { error?: string; done?: string }): SafeHtml {
  if (n.error) return html`<p class="error" role="alert">${n.error}</p>`;
  return n.done ? html`<p class="ok" role="status">${n.done}</p>` : html``;
}

/**
 * A labelled new-password input under the one password rule (accounts/password-rule.ts), its hint
 * under it: `name` is also its id; `optional` for a password that may be left empty.
 */
export function newPasswordField(p: {
  name: string;
  label: string;
  hint?: string;
  optional?: boolean;
}): SafeHtml {
  return formField({
    id: p.name,
    label: p.label,
    type: 'password',
    autocomplete: 'new-password',
    ...(p.hint ? { hint: p.hint } : {}),
    ...(p.optional ? { optional: true } : {}),
    attributes: html`minlength="${PASSWORD_MIN_LENGTH}"`,
  });
}

/** A page of the account pages. */
export function accountPage(title: string, account: AccountProfile, current: string, body: SafeHtml): string {
  return layout(
    title,
    html`${accountNav(current, account)}
      <h1>${title}</h1>
      ${
        account.notices?.length
          ? html`<div class="ok" role="status">${account.notices.map((n) => html`<p>${n}</p>`)}</div>`
          : ''
      }
      ${body} ${signedInAs(account)}`,
    { wide: true },
  );
}

/** One connected app as the page shows it. */
export interface ConnectedApp extends AppIdentity {
  /** Where it sends the browser: its registered redirect URIs. */
  redirectUris: string[];
  scopes: string[];
  /** First authorized, Unix seconds. */
  firstAuthorized: number;
  /** Last used, Unix seconds, when it ever was (at most a minute old: storage/grant-usage.ts). */
  lastUsed?: number;
  /** Scope → when the API last served it an operation needing that scope (storage/scope-usage.ts). */
  scopeUses: Record<string, number>;
  /** When its access ends, Unix seconds: the latest end of its grants. */
  expiresAt?: number;
  /**
   * How often a replaced refresh token of it was answered within the reuse window (the same
   * installation using it from several processes: provider/refresh-extension/), and the last time.
   */
  reuse?: GrantReuse;
}

/** What an app's scope was last used for, in words: a time, "Not used yet", or the sign-in scopes' note. */
function lastUse(app: ConnectedApp, scope: string): string {
  if (!findScope(scope) || !API_SCOPE_NAMES.includes(scope)) return 'Used at sign-in (not recorded)';
  const at = app.scopeUses[scope];
  return at === undefined ? 'Not used yet' : when(at);
}

/**
 * Each scope granted, what it allows, and when the app last used it, under the heading of the kind of
 * school data it reaches (its data category): one row group per category, the category's name heading
 * the group's rows.
 */
function scopeUseTable(app: ConnectedApp): SafeHtml {
  return html`<p class="group">Scopes granted, by the kind of data they reach, and when it last used each:</p>
    <table class="scope-use">
      <thead>
        <tr>
          <th scope="col">Scope</th>
          <th scope="col">Lets it</th>
          <th scope="col">Last used</th>
        </tr>
      </thead>
      ${scopesByCategory(app.scopes).map(
        (group) =>
          html`<tbody>
            <tr class="category">
              <th scope="rowgroup" colspan="3">${group.title}</th>
            </tr>
            ${group.scopes.map(
              (s) =>
                html`<tr class="${findScope(s)?.changesData ? 'writes' : ''}">
                  <td data-label="Scope"><code>${s}</code></td>
                  <td data-label="Lets it">${findScope(s)?.consentText ?? s}</td>
                  <td data-label="Last used">${lastUse(app, s)}</td>
                </tr>`,
            )}
          </tbody>`,
      )}
    </table>`;
}

/** Whether Drop unused scopes can do something: some API scope granted and never used. */
function canDropUnused(app: ConnectedApp): boolean {
  return app.scopes.some((s) => API_SCOPE_NAMES.includes(s) && app.scopeUses[s] === undefined);
}

function appCard(app: ConnectedApp, csrf: string): SafeHtml {
  const destinations = [...new Set(app.redirectUris.map(destinationText))];
  const hidden = html`<input type="hidden" name="csrf" value="${csrf}" />
    <input type="hidden" name="client_id" value="${app.clientId}" />`;
  // Named by the app and its client id: two apps may share a name, never an id (landmarks are unique).
  const landmark = app.name ? `${app.name} (${app.clientId})` : app.clientId;
  return html`<section class="card" aria-label="${landmark}">
    ${appLabel(app)}
    <dl class="facts">
      <dt>Client ID</dt>
      <dd class="ids">
        <code><bdi>${app.clientId}</bdi></code>
      </dd>
      <dt>Sends you to</dt>
      <dd>${destinations.map((d) => html`<bdi>${d}</bdi><br />`)}</dd>
      <dt>First allowed</dt>
      <dd>${when(app.firstAuthorized)}</dd>
      <dt>Last used</dt>
      <dd>${when(app.lastUsed)}</dd>
      <dt>Access ends</dt>
      <dd>${app.expiresAt === undefined ? 'When you revoke it' : when(app.expiresAt)}</dd>
      ${
        app.reuse
          ? html`<dt>Used from several places</dt>
              <dd>
                An old sign-in of this app was used again
                ${app.reuse.count === 1 ? 'once' : `${app.reuse.count} times`}, last ${when(app.reuse.last)},
                by the same copy of the app (several windows or processes of it). If you do not run it in
                several places, revoke its access.
              </dd>`
          : ''
      }
    </dl>
    ${scopeUseTable(app)}
    ${
      canDropUnused(app)
        ? html`<form method="post" action="${ACCOUNT_PATH}/apps/drop-unused">
            ${hidden}
            <button type="submit" class="secondary">Drop unused scopes</button>
          </form>`
        : ''
    }
    <p>
      <a href="${ACCOUNT_PATH}/apps/revoke?${new URLSearchParams({ client_id: app.clientId }).toString()}"
        >Revoke access…</a
      >
    </p>
  </section>`;
}

/** Revoke's confirmation page: the app, what ending its access does, and the form that ends it. */
export function revokeConfirmPage(p: { account: AccountProfile; csrf: string; app: ConnectedApp }): string {
  return accountPage(
    'Revoke this app’s access?',
    p.account,
    'apps',
    html`<section class="card">${appLabel(p.app)}</section>
      <p>
        Every access it has to your account ends at once: it can no longer read or change anything for you. It
        would have to ask you again, and you would have to allow it again.
      </p>
      ${confirmForm({
        action: `${ACCOUNT_PATH}/apps/revoke`,
        csrf: p.csrf,
        target: { name: 'client_id', value: p.app.clientId },
        button: 'Revoke access',
        cancel: { href: `${ACCOUNT_PATH}/apps`, text: 'Cancel: keep its access' },
      })}`,
  );
}

/** Connected apps: every app this person allowed, and Revoke. */
export function connectedAppsPage(p: {
  account: AccountProfile;
  csrf: string;
  apps: ConnectedApp[];
  revoked?: string;
  /** Why the Revoke or Drop unused scopes just sent did nothing. */
  error?: string;
  /** What Drop unused scopes just did. */
  done?: string;
}): string {
  return accountPage(
    'Connected apps',
    p.account,
    'apps',
    html`${formNotice({ error: p.error, done: p.done })}${
        p.revoked
          ? html`<p class="ok" role="status">
              Access of <bdi>${p.revoked}</bdi> has ended. Its tokens no longer work.
            </p>`
          : ''
      }
      <p>
        These apps can use your school account because you allowed them. Revoke one and it loses its access at
        once; it would have to ask you again.
      </p>
      ${
        p.apps.length
          ? p.apps.map((a) => appCard(a, p.csrf))
          : html`<p class="card">No app has access to your account.</p>`
      }`,
  );
}
