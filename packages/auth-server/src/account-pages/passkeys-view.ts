/**
 * The passkey and recovery-code sections of Your account (your-account-view.ts): the account's
 * passkeys with their name, when added and last used, and Remove; until the person confirmed it is
 * them (passkeys/factor-proof.ts) the form that does so (a passkey, or the password when the account
 * has no passkey), after it the form that adds one (its WebAuthn options with this page's challenge,
 * run by the passkey script); the recovery codes, shown once right after they are made; and a notice
 * of passkeys added elsewhere after only a password.
 */
import { ACCOUNT_PATH, plural } from '@school/shared';
import type { AddedPasskeyNotice, PasskeyView } from '../passkeys/passkey-store.js';
import type { ProofFactor } from '../passkeys/factor-proof.js';
import { PASSKEY_SCRIPT_URL, WEBAUTHN_LIBRARY_URL } from '../passkeys/assets.js';
import { html, scriptTags, type SafeHtml } from '../pages/html.js';
import { formField } from '../pages/form-field.js';
import { passkeyForm } from '../pages/passkey-form.js';
import { when } from './views.js';

/** The longest passkey name. */
export const PASSKEY_NAME_MAX = 60;

/** What the passkey sections show. */
export interface PasskeySections {
  /** Browsers can use passkeys at BASE_URL (not at an IP address). */
  available: boolean;
  passkeys: PasskeyView[];
  /**
   * Whether this session just confirmed it is the person with the account's strongest factor; if not,
   * which factor it needs, and for a passkey the WebAuthn request options (JSON) of the confirmation.
   */
  proof: { proven: true } | { proven: false; needed: ProofFactor; options?: string };
  /** WebAuthn creation options (JSON) with this page's challenge, once confirmed; else empty. */
  registrationOptions: string;
  /** Passkeys added in another session after only a password. */
  addedElsewhere: AddedPasskeyNotice[];
  nonce: string;
  /** How many unused recovery codes the account has. */
  recoveryCodesLeft: number;
  /** Codes made just now, shown this once. */
  newRecoveryCodes?: string[];
  /** The name typed into the add form, kept after a failure. */
  passkeyName?: string;
}

function passkeyRows(passkeys: PasskeyView[]): SafeHtml {
  if (passkeys.length === 0) return html`<p>You have no passkey yet.</p>`;
  return html`<table>
    <thead>
      <tr>
        <th scope="col">Name</th>
        <th scope="col">Added</th>
        <th scope="col">Last used</th>
        <th scope="col"><span class="note">Action</span></th>
      </tr>
    </thead>
    <tbody>
      ${passkeys.map(
        (p) =>
          html`<tr>
            <td data-label="Name"><bdi>${p.name}</bdi></td>
            <td data-label="Added" class="nowrap">${when(p.createdAt)}</td>
            <td data-label="Last used" class="nowrap">${when(p.lastUsedAt)}</td>
            <td data-label="Action">
              <a
                href="${ACCOUNT_PATH}/account/passkeys/remove?${new URLSearchParams({ passkey_id: p.id }).toString()}"
                aria-label="Remove the passkey ${p.name}…"
                >Remove…</a
              >
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The notice of passkeys added in another session after only the password was typed. */
function addedElsewhereNotice(added: AddedPasskeyNotice[]): SafeHtml {
  if (added.length === 0) return html``;
  return html`<div class="error" role="alert">
    <p>
      ${added.length === 1 ? 'A passkey was added' : 'Passkeys were added'} to your account somewhere else,
      after only your password was typed:
    </p>
    <ul>
      ${added.map((a) => html`<li><bdi>${a.name}</bdi>, ${when(a.createdAt)}</li>`)}
    </ul>
    <p>
      If that was not you, someone knows your password: ask an admin of the school to remove the passkey, and
      change your password below.
    </p>
  </div>`;
}

/** The form that confirms it is the person, with the factor the account needs. */
function confirmForms(p: PasskeySections, csrf: SafeHtml): SafeHtml {
  if (p.proof.proven)
    return html`<p class="note">
      You confirmed it is you: for a few minutes you can add or remove passkeys and make recovery codes.
    </p>`;
  const intro = html`<h3 id="confirm-it-is-you">Confirm it is you</h3>
    <p>Passkeys and recovery codes change only right after you confirm it is you, for a few minutes.</p>`;
  if (p.proof.needed === 'passkey')
    return html`<div>
      ${intro}
      ${passkeyForm(
        {
          action: `${ACCOUNT_PATH}/account/confirm/passkey`,
          ceremony: 'sign-in',
          options: p.proof.options ?? '',
          csrf,
        },
        html`<button type="submit">Confirm with a passkey</button>`,
      )}
    </div>`;
  return html`<div>
    ${intro}
    <form method="post" action="${ACCOUNT_PATH}/account/confirm/password">
      ${csrf}
      ${formField({
        id: 'confirm-password',
        label: 'Your password',
        name: 'password',
        type: 'password',
        autocomplete: 'current-password',
        hint: 'You have no passkey yet, so your password confirms it is you.',
      })}
      <button type="submit">Confirm with your password</button>
    </form>
  </div>`;
}

/** The form that adds a passkey, once the person confirmed it is them. */
function addForm(p: PasskeySections, csrf: SafeHtml): SafeHtml {
  if (!p.proof.proven) return html``;
  return passkeyForm(
    {
      action: `${ACCOUNT_PATH}/account/passkeys`,
      ceremony: 'register',
      options: p.registrationOptions,
      csrf,
    },
    html`${formField({
        id: 'passkey-name',
        label: 'Name of the new passkey',
        name: 'name',
        autocomplete: 'off',
        value: p.passkeyName ?? '',
        hint: 'For example “Office laptop” or “Blue security key”.',
        attributes: html`maxlength="${PASSKEY_NAME_MAX}"`,
      })} <button type="submit">Add a passkey</button>`,
  );
}

/** The recovery codes' actions: none without a passkey; asking first when unused codes would stop working. */
function recoveryCodeActions(p: PasskeySections, csrf: SafeHtml): SafeHtml {
  if (p.passkeys.length === 0)
    return html`<p class="note">Recovery codes stand in for a lost passkey: add a passkey first.</p>`;
  if (!p.proof.proven)
    return html`<p class="note">Confirm it is you (under Passkeys) to make new recovery codes.</p>`;
  return p.recoveryCodesLeft > 0 && !p.newRecoveryCodes
    ? html`<p><a href="${ACCOUNT_PATH}/account/recovery-codes">Make new recovery codes…</a></p>`
    : html`<form method="post" action="${ACCOUNT_PATH}/account/recovery-codes">
        ${csrf}
        <button type="submit" class="secondary">Make new recovery codes</button>
      </form>`;
}

/** The Passkeys and Recovery codes sections. */
export function passkeySections(p: PasskeySections, csrf: SafeHtml): SafeHtml {
  if (!p.available) {
    return html`<section class="card" aria-labelledby="passkeys">
      <h2 id="passkeys">Passkeys</h2>
      <p class="note">
        Passkeys need this service at a host name (https, or http://localhost on one computer); browsers
        refuse them at an IP address. Ask the school's operators to set BASE_URL to one.
      </p>
    </section>`;
  }
  const left = p.recoveryCodesLeft;
  return html`<section class="card" aria-labelledby="passkeys">
      <h2 id="passkeys">Passkeys</h2>
      <p>
        A passkey signs you in with this device’s screen lock or a security key instead of your password, and
        cannot be typed into a fake site.
      </p>
      ${addedElsewhereNotice(p.addedElsewhere)} ${passkeyRows(p.passkeys)} ${confirmForms(p, csrf)}
      ${addForm(p, csrf)}
    </section>
    <section class="card" aria-labelledby="recovery">
      <h2 id="recovery">Recovery codes</h2>
      ${
        p.newRecoveryCodes
          ? html`<p class="ok" role="status">
                Here are your new recovery codes. Write them down or print them now: they are shown only this
                once. Each one signs you in once if you lose your passkey. Your old codes no longer work.
              </p>
              <ul class="codes">
                ${p.newRecoveryCodes.map((c) => html`<li><code class="secret">${c}</code></li>`)}
              </ul>`
          : html`<p>
              You have ${plural(left, 'unused recovery code')}. Each one signs you in once if you lose your
              passkey.
            </p>`
      }
      ${recoveryCodeActions(p, csrf)}
    </section>
    ${scriptTags(p.nonce, [WEBAUTHN_LIBRARY_URL, PASSKEY_SCRIPT_URL])}`;
}
