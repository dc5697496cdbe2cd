/**
 * The login and consent pages (docs/decisions.md). Every value shown comes from a
 * client or a user, so everything goes through the escaping {@link html} template, and every string a
 * client supplied is isolated and labelled by pages/page-parts.ts.
 */
import { ACCOUNT_PATH } from '@school/shared';
import { WEBAUTHN_LIBRARY_URL, PASSKEY_SCRIPT_URL } from '../passkeys/assets.js';
import { html, layout, scriptTags } from '../pages/html.js';
import { formField } from '../pages/form-field.js';
import { passkeyForm } from '../pages/passkey-form.js';
import { appLabel, destinationText, type AppIdentity } from '../pages/page-parts.js';
import type { DurationChoice } from './access-duration.js';
import { durationFieldset } from './duration-fieldset.js';
import { needsAdmin, scopeChoices } from './scope-choices.js';

export { destinationText } from '../pages/page-parts.js';

/** What the pages say about the app that is asking. */
export interface ClientView extends AppIdentity {
  /** The redirect URI of this request. */
  redirectUri: string;
  /** Nobody vouched for it (clients/client-kind.ts `isSelfDeclared`). */
  selfDeclared: boolean;
}

/** The line under every sign-in and consent page: where access is managed afterwards. */
const manageLater = html`<p class="note">
  You can see every app you allowed, and take its access back at any time, on
  <a href="${ACCOUNT_PATH}/apps">Connected apps</a>.
</p>`;

/** The passkey part of the sign-in page: its form's options and the answer's script nonce. */
export interface PasskeySignInView {
  action: string;
  /** The WebAuthn request options (JSON) with this page's challenge. */
  options: string;
  nonce: string;
  /** The recovery-code form's action. */
  recoveryAction: string;
  /** Only a passkey will do (PASSKEY_FOR_WRITE_CONSENT): the password and recovery forms are left out. */
  required: boolean;
  /** Browsers can use passkeys at BASE_URL (not at an IP address): else no passkey form is shown. */
  available: boolean;
}

/** The sign-in page: a passkey, the password, or a recovery code. */
export function loginPage(p: {
  action: string;
  csrf: string;
  client: ClientView;
  email?: string;
  error?: string;
  passkey: PasskeySignInView;
  /** The recovery form was the one sent: it is shown open, with its email. */
  recoveryEmail?: string;
}): string {
  const forAccountPages = p.client.kind === 'console';
  const csrf = html`<input type="hidden" name="csrf" value="${p.csrf}" />`;
  const recovering = p.recoveryEmail !== undefined;
  return layout(
    'Sign in',
    html`<h1>Sign in to your school</h1>
      ${
        forAccountPages
          ? html`<p>Sign in to see and manage the apps connected to your school.</p>`
          : html`<p>This app wants to connect to your school account:</p>
              ${appLabel(p.client, { asking: true })}`
      }
      ${
        p.passkey.required
          ? html`<p class="error" role="alert">
              This app asks to change things in your school. Sign in with your passkey to allow that.
            </p>`
          : ''
      }
      ${p.error ? html`<p class="error" role="alert">${p.error}</p>` : ''}
      ${
        p.passkey.available
          ? passkeyForm(
              { action: p.passkey.action, ceremony: 'sign-in', options: p.passkey.options, csrf },
              html`<button type="submit">Sign in with a passkey</button>`,
            )
          : ''
      }
      ${
        p.passkey.required
          ? ''
          : html`${p.passkey.available ? html`<h2>Or with your password</h2>` : ''}
              <form method="post" action="${p.action}">
                ${csrf}
                ${formField({
                  id: 'email',
                  label: 'Email',
                  type: 'email',
                  autocomplete: 'username',
                  value: recovering ? '' : (p.email ?? ''),
                })}
                ${formField({
                  id: 'password',
                  label: 'Password',
                  type: 'password',
                  autocomplete: 'current-password',
                })}
                <button type="submit">Sign in</button>
              </form>
              ${
                p.passkey.available
                  ? html`<details ${recovering ? html`open` : ''}>
                      <summary>Lost your passkey? Use a recovery code</summary>
                      <form method="post" action="${p.passkey.recoveryAction}">
                        ${csrf}
                        ${formField({
                          id: 'recovery-email',
                          label: 'Email',
                          name: 'email',
                          type: 'email',
                          autocomplete: 'username',
                          value: p.recoveryEmail ?? '',
                        })}
                        ${formField({
                          id: 'recovery-code',
                          label: 'Recovery code',
                          name: 'code',
                          autocomplete: 'one-time-code',
                          attributes: html`spellcheck="false"`,
                        })}
                        <button type="submit" class="secondary">Sign in with the code</button>
                      </form>
                    </details>`
                  : ''
              }`
      }
      ${
        forAccountPages
          ? ''
          : html`<p class="note">
              After you sign in you will be asked what to allow. You will then be sent to
              <bdi>${destinationText(p.client.redirectUri)}</bdi>.
            </p>`
      }
      <p class="note">On a shared computer, sign out when you are done.</p>
      ${p.passkey.available ? scriptTags(p.passkey.nonce, [WEBAUTHN_LIBRARY_URL, PASSKEY_SCRIPT_URL]) : ''}`,
  );
}

/** The heading over the scopes: what this consent adds, and whether the app holds access already. */
function scopesHeading(p: { allowedBefore?: boolean; nothingNew?: boolean }): string {
  if (p.nothingNew) return 'You allowed all of this before. It will still be able to';
  return p.allowedBefore ? 'Besides what you allowed before, it will also be able to' : 'It will be able to';
}

/**
 * The consent form: who asks, where it sends you, each scope as a checkbox (scope-choices.ts), and
 * "Not you?". `scopes` are the ones this consent adds; `allowedBefore`: the app already holds a grant
 * of this account (step-up), whose scopes are not listed again; `nothingNew`: it asks for nothing new,
 * and `scopes` are the ones it asks for (unticking one takes it back).
 */
export function consentPage(p: {
  confirmAction: string;
  abortAction: string;
  switchAction: string;
  csrf: string;
  client: ClientView;
  scopes: readonly string[];
  allowedBefore?: boolean;
  nothingNew?: boolean;
  accountEmail?: string;
  /** What the app asked beyond what the signer may grant: listed apart, with Ask an admin. */
  needsAdmin?: readonly string[];
  /** Where Ask an admin posts the Allow form (its duration goes with it). */
  askAction?: string;
  /** Of `scopes`, those the admin refused this app before: they start unticked, marked so. */
  refusedBefore?: readonly string[];
  /** All of `scopes` were refused before and the app holds access: Allow with none ticked keeps it. */
  keepsHeldWhenNoneTicked?: boolean;
  /**
   * The "how long" choices on offer, shortest first (duration-fieldset.ts): the last ("until I take it
   * back") is preselected, unless the app's access ends at `currentEnd` already, which is then kept.
   */
  durations: readonly DurationChoice[];
  /** When the access the app holds ends now (Unix seconds): a repeat or step-up consent. */
  currentEnd?: number;
  /** The school's time zone, in which the ends are shown. */
  timezone: string;
}): string {
  const csrf = html`<input type="hidden" name="csrf" value="${p.csrf}" />`;
  return layout(
    'Allow access?',
    html`<h1>Allow access to your school?</h1>
      <p>This app is asking for access to your school:</p>
      ${appLabel(p.client, { asking: true })}
      <p>
        If you allow it, you will be sent back to
        <strong><bdi>${destinationText(p.client.redirectUri)}</bdi></strong
        >.
      </p>
      <form method="post" action="${p.confirmAction}" id="allow">
        ${csrf}
        <fieldset class="choices">
          <legend>${scopesHeading(p)}</legend>
          ${scopeChoices(p.scopes, p.client.selfDeclared, p.refusedBefore)}
          <p class="note">
            ${
              p.keepsHeldWhenNoneTicked
                ? 'You refused all of this before. Left unticked, Allow keeps only what you allowed before.'
                : 'Untick anything you do not want the app to have. Unticking everything is the same as Deny.'
            }
          </p>
        </fieldset>
        ${durationFieldset(p)}
        <div class="actions">
          <button type="submit">Allow</button>
          <button type="submit" form="deny" class="secondary">Deny</button>
        </div>
        ${needsAdmin(
          p.needsAdmin ?? [],
          html`<button type="submit" formaction="${p.askAction ?? ''}" class="secondary">
            Ask an admin
          </button>`,
        )}
      </form>
      <form method="post" action="${p.abortAction}" id="deny">${csrf}</form>
      ${
        p.accountEmail
          ? html`<form method="post" action="${p.switchAction}" class="who-am-i">
              ${csrf}
              <p>
                Signed in as <strong><bdi>${p.accountEmail}</bdi></strong
                >.
                <button type="submit" class="link">Not you? Sign in as someone else</button>
              </p>
            </form>`
          : ''
      }
      ${manageLater}`,
  );
}
