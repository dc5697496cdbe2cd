/**
 * Your account (account-pages/your-account.ts): passkeys and recovery codes (passkeys-view.ts),
 * change password, sign out everywhere; and the page after signing out everywhere. In the look of the other account pages (views.ts).
 */
import { ACCOUNT_PATH } from '@school/shared';
import type { AccountProfile } from '../accounts/account-store.js';
import { PASSWORD_MIN_LENGTH } from '../accounts/password-rule.js';
import type { PasskeyView } from '../passkeys/passkey-store.js';
import { html, layout, type SafeHtml } from '../pages/html.js';
import { confirmForm } from './confirm-form.js';
import { formField } from '../pages/form-field.js';
import { passkeySections, type PasskeySections } from './passkeys-view.js';
import { accountPage, formNotice, newPasswordField, when } from './views.js';

/** The page: a message at the top (`error` or `done`), then the two forms. */
export function yourAccountPage(p: {
  account: AccountProfile;
  csrf: string;
  error?: string;
  done?: string;
  passkeys: PasskeySections;
}): string {
  const csrf = html`<input type="hidden" name="csrf" value="${p.csrf}" />`;
  return accountPage(
    'Your account',
    p.account,
    'account',
    html`${formNotice(p)} ${passkeySections(p.passkeys, csrf)}
      <section class="card" aria-labelledby="change-password">
        <h2 id="change-password">Change your password</h2>
        <p>
          You will stay signed in here; everywhere else you are signed in (other browsers, other computers) is
          signed out.
        </p>
        <form method="post" action="${ACCOUNT_PATH}/account/password">
          ${csrf}
          <input type="text" name="username" value="${p.account.email}" autocomplete="username" hidden />
          ${formField({
            id: 'current',
            label: 'Current password',
            type: 'password',
            autocomplete: 'current-password',
          })}
          ${newPasswordField({
            name: 'password',
            label: 'New password',
            hint: `At least ${PASSWORD_MIN_LENGTH} characters.`,
          })}
          ${newPasswordField({ name: 'confirm', label: 'New password again' })}
          <button type="submit">Change password</button>
        </form>
      </section>
      <section class="card" aria-labelledby="everywhere">
        <h2 id="everywhere">Sign out everywhere</h2>
        <p>
          Ends every session of your account, in this browser and on every other computer. Apps you allowed
          keep their access; take it back on <a href="${ACCOUNT_PATH}/apps">Connected apps</a>.
        </p>
        <p><a href="${ACCOUNT_PATH}/account/sign-out-everywhere">Sign out everywhere…</a></p>
      </section>`,
  );
}

/**
 * The account's passkeys, each with its Remove link, where signing out does not end them (a password
 * change, signing out everywhere).
 */
function passkeysStaying(passkeys: PasskeyView[]): SafeHtml {
  if (passkeys.length === 0) return html``;
  return html`<h2 id="passkeys-staying">Your passkeys stay</h2>
    <p>
      Signing out does not remove a passkey: each of these still signs in to your account. Remove any you do
      not know first.
    </p>
    <ul aria-labelledby="passkeys-staying">
      ${passkeys.map(
        (p) =>
          html`<li>
            <bdi>${p.name}</bdi>, added ${when(p.createdAt)}:
            <a
              href="${ACCOUNT_PATH}/account/passkeys/remove?${new URLSearchParams({ passkey_id: p.id }).toString()}"
              aria-label="Remove the passkey ${p.name}…"
              >Remove…</a
            >
          </li>`,
      )}
    </ul>`;
}

/** Sign out everywhere's confirmation page, whose form does it; the passkeys that stay are listed first. */
export function signOutEverywhereConfirmPage(p: {
  account: AccountProfile;
  csrf: string;
  passkeys: PasskeyView[];
}): string {
  return accountPage(
    'Sign out everywhere?',
    p.account,
    'account',
    html`<p>
        Every session of your account ends at once: in this browser, and on every other computer where you are
        signed in. Apps you allowed keep their access; take it back on
        <a href="${ACCOUNT_PATH}/apps">Connected apps</a>.
      </p>
      ${passkeysStaying(p.passkeys)}
      ${confirmForm({
        action: `${ACCOUNT_PATH}/account/sign-out-everywhere`,
        csrf: p.csrf,
        button: 'Sign out everywhere',
        cancel: { href: `${ACCOUNT_PATH}/account`, text: 'Cancel: stay signed in' },
      })}`,
  );
}

/** Remove passkey's confirmation page, whose form removes it. */
export function removePasskeyConfirmPage(p: {
  account: AccountProfile;
  csrf: string;
  passkey: { id: string; name: string };
}): string {
  return accountPage(
    'Remove this passkey?',
    p.account,
    'account',
    html`<p>
        The passkey <strong><bdi>${p.passkey.name}</bdi></strong> will no longer sign you in. Sign in with
        another passkey, a recovery code or your password instead.
      </p>
      ${confirmForm({
        action: `${ACCOUNT_PATH}/account/passkeys/remove`,
        csrf: p.csrf,
        target: { name: 'passkey_id', value: p.passkey.id },
        button: 'Remove the passkey',
        cancel: { href: `${ACCOUNT_PATH}/account`, text: 'Cancel: keep it' },
      })}`,
  );
}

/** Make new recovery codes' confirmation page, when unused codes would stop working. */
export function newRecoveryCodesConfirmPage(p: {
  account: AccountProfile;
  csrf: string;
  left: number;
}): string {
  return accountPage(
    'Make new recovery codes?',
    p.account,
    'account',
    html`<p>
        ${p.left === 1 ? 'Your unused recovery code stops' : `Your ${p.left} unused recovery codes stop`}
        working at once. Ten new codes are shown once, on the next page: have a pen or a printer ready.
      </p>
      ${confirmForm({
        action: `${ACCOUNT_PATH}/account/recovery-codes`,
        csrf: p.csrf,
        button: 'Make new recovery codes',
        cancel: { href: `${ACCOUNT_PATH}/account`, text: 'Cancel: keep the codes I have' },
      })}`,
  );
}

/** After signing out everywhere. */
export function signedOutEverywherePage(): string {
  return layout(
    'Signed out everywhere',
    html`<h1>You are signed out everywhere</h1>
      <p role="status">
        Every session of your account has ended, this one included: nobody can use them any more.
      </p>
      <p>
        Apps you allowed keep their access. To take it back, sign in again and open
        <a href="${ACCOUNT_PATH}/apps">Connected apps</a>.
      </p>
      <p><a href="${ACCOUNT_PATH}/account">Sign in again</a></p>`,
  );
}
