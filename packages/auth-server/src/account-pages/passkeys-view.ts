/**
 * The passkey and recovery-code sections of Your account (your-account-view.ts): the account's
 * passkeys with their name, when added and last used, and Remove; the form that adds one (its
 * WebAuthn options with this page's challenge, run by the passkey script); the recovery codes,
 * shown once right after they are made.
 */
import { ACCOUNT_PATH } from '@school/shared';
import type { PasskeyView } from '../passkeys/passkey-store.js';
import { PASSKEY_SCRIPT_URL, WEBAUTHN_LIBRARY_URL } from '../passkeys/assets.js';
import { html, scriptTags, type SafeHtml } from '../pages/html.js';
import { formField } from '../pages/form-field.js';
import { when } from './views.js';

/** The longest passkey name. */
export const PASSKEY_NAME_MAX = 60;

/** What the passkey sections show. */
export interface PasskeySections {
  /** Browsers can use passkeys at BASE_URL (not at an IP address). */
  available: boolean;
  passkeys: PasskeyView[];
  /** WebAuthn creation options (JSON) with this page's challenge. */
  registrationOptions: string;
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
      ${passkeyRows(p.passkeys)}
      <form
        method="post"
        action="${ACCOUNT_PATH}/account/passkeys"
        data-passkey="register"
        data-options="${p.registrationOptions}"
      >
        ${csrf}
        <input type="hidden" name="response" value="" />
        ${formField({
          id: 'passkey-name',
          label: 'Name of the new passkey',
          name: 'name',
          autocomplete: 'off',
          value: p.passkeyName ?? '',
          hint: 'For example “Office laptop” or “Blue security key”.',
          attributes: html`maxlength="${PASSKEY_NAME_MAX}"`,
        })}
        <button type="submit">Add a passkey</button>
        <p class="note" role="status" data-passkey-status></p>
      </form>
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
              ${left === 1 ? 'You have 1 unused recovery code.' : `You have ${left} unused recovery codes.`}
              Each one signs you in once if you lose your passkey.
            </p>`
      }
      ${
        left > 0 && !p.newRecoveryCodes
          ? html`<p><a href="${ACCOUNT_PATH}/account/recovery-codes">Make new recovery codes…</a></p>`
          : html`<form method="post" action="${ACCOUNT_PATH}/account/recovery-codes">
              ${csrf}
              <button type="submit" class="secondary">Make new recovery codes</button>
            </form>`
      }
    </section>
    ${scriptTags(p.nonce, [WEBAUTHN_LIBRARY_URL, PASSKEY_SCRIPT_URL])}`;
}
