/**
 * Staff accounts (account-pages/staff-accounts.ts): every account with its role, state, lock state
 * and password sign-in switch, what can be done to each, the form that creates a staff account, and
 * the confirmation page of the actions that take something away. A password set by this page is shown once, on the answer
 * to the form that set it, and nowhere else.
 */
import { ACCOUNT_PATH, plural } from '@school/shared';
import type { ListedAccount } from '../accounts/account-admin.js';
import type { AccountProfile } from '../accounts/account-store.js';
import { PASSWORD_MIN_LENGTH } from '../accounts/password-rule.js';
import type { AccountLockState } from '../accounts/login-guard.js';
import type { AccountFactors } from '../passkeys/factor-admin.js';
import { html, type SafeHtml } from '../pages/html.js';
import { confirmForm } from './confirm-form.js';
import { formField } from '../pages/form-field.js';
import { accountPage, formNotice, newPasswordField, when } from './views.js';

/** A message at the top of the page; `password` is a password to show this once. */
export interface StaffNotice {
  error?: string;
  /** Every problem of the Add form, listed together. */
  errors?: string[];
  done?: string;
  password?: { email: string; value: string };
  /** What was typed into the Add form (never the password), to fill it again. */
  typed?: { email: string; name: string };
}

/** The seeded roles in words; a role the school added is shown by its name. */
const ROLE_WORDS: Record<string, string> = { admin: 'Admin', staff: 'Staff' };

/** The actions that open a confirmation page first. */
export const CONFIRMED_ACTIONS = ['reset-password', 'remove-passkeys', 'disable', 'remove'] as const;

/** An account as the page lists it: with its passkeys and unused recovery codes. */
export type StaffRow = ListedAccount & { factors: AccountFactors };

/** One of {@link CONFIRMED_ACTIONS}. */
export type ConfirmedAction = (typeof CONFIRMED_ACTIONS)[number];

const confirmLink = (action: ConfirmedAction, accountId: string) =>
  `${ACCOUNT_PATH}/staff/confirm?${new URLSearchParams({ action, account_id: accountId }).toString()}`;

/** The lock state in words. */
export function lockText(lock: AccountLockState): string {
  if (lock.lockedFrom.length) return `Locked from ${plural(lock.lockedFrom.length, 'address', 'addresses')}`;
  if (lock.delayed) return `Slowed down: ${lock.failures} failed sign-ins`;
  return lock.failures ? `Not locked (${lock.failures} failed sign-ins)` : 'Not locked';
}

/** The button that switches an account's password sign-in off, or back on. */
function passwordSwitch(a: ListedAccount, csrf: SafeHtml): SafeHtml {
  const off = a.passwordOff === true;
  return html`<form method="post" action="${ACCOUNT_PATH}/staff/password-sign-in">
    ${csrf}<input type="hidden" name="account_id" value="${a._id}" />
    <input type="hidden" name="password_sign_in" value="${off ? 'on' : 'off'}" />
    <button type="submit" class="secondary">
      ${off ? 'Switch password sign-in on' : 'Switch password sign-in off'}
    </button>
  </form>`;
}

/** An account's passkeys by name, and how many unused recovery codes it has. */
function factorsText(f: AccountFactors): SafeHtml {
  const codes = plural(f.recoveryCodes, 'recovery code');
  if (f.passkeys.length === 0) return html`No passkey; ${codes}`;
  return html`${f.passkeys.length === 1 ? 'Passkey' : 'Passkeys'}:
  ${f.passkeys.map((p, i) => html`${i ? ', ' : ''}<bdi>${p.name}</bdi>`)}; ${codes}`;
}

function row(a: StaffRow, self: AccountProfile, csrf: SafeHtml): SafeHtml {
  const action = (path: string, label: string, danger = false) =>
    html`<form method="post" action="${ACCOUNT_PATH}/staff/${path}">
      ${csrf}<input type="hidden" name="account_id" value="${a._id}" />
      <button type="submit" class="${danger ? 'danger' : 'secondary'}">${label}</button>
    </form>`;
  const confirm = (to: ConfirmedAction, label: string) =>
    html`<a href="${confirmLink(to, a._id)}" aria-label="${label} ${a.email}">${label}…</a>`;
  const held = a.lock.lockedFrom.length > 0 || a.lock.failures > 0;
  const hasFactors = a.factors.passkeys.length > 0 || a.factors.recoveryCodes > 0;
  const others = html`${confirm('reset-password', 'Reset password')} ${passwordSwitch(a, csrf)}
  ${hasFactors ? confirm('remove-passkeys', 'Remove passkeys and codes') : ''}
  ${a.disabled ? action('enable', 'Enable') : confirm('disable', 'Disable')}
  ${a.role === 'admin' ? action('demote', 'Make staff') : action('promote', 'Make admin')}
  ${confirm('remove', 'Remove')}`;
  return html`<tr>
    <td data-label="Email"><bdi>${a.email}</bdi>${a._id === self._id ? ' (you)' : ''}</td>
    <td data-label="Name"><bdi>${a.name}</bdi></td>
    <td data-label="Role" class="nowrap">${ROLE_WORDS[a.role] ?? a.role}</td>
    <td data-label="Created" class="nowrap">${when(a.createdAt)}</td>
    <td data-label="Sign-in">
      ${a.disabled ? html`<strong>Disabled</strong>` : lockText(a.lock)}${
        a.passwordOff ? html`<br /><strong>Password sign-in off</strong>` : ''
      }<br />${factorsText(a.factors)}
    </td>
    <td data-label="Actions">
      <div class="actions stacked">
        ${held ? action('unlock', 'Unlock') : ''}
        ${a._id === self._id ? html`<a href="${ACCOUNT_PATH}/account">Your account</a>` : others}
      </div>
    </td>
  </tr>`;
}

/** The page. */
export function staffAccountsPage(p: {
  account: AccountProfile;
  csrf: string;
  accounts: StaffRow[];
  notice?: StaffNotice;
}): string {
  const csrf = html`<input type="hidden" name="csrf" value="${p.csrf}" />`;
  const n = p.notice ?? {};
  return accountPage(
    'Staff accounts',
    p.account,
    'staff',
    html`${
        n.errors?.length
          ? html`<div class="error" role="alert">
              <p>The staff account was not added:</p>
              <ul>
                ${n.errors.map((e) => html`<li>${e}</li>`)}
              </ul>
            </div>`
          : formNotice(n)
      }
      ${
        n.password
          ? html`<div class="ok" role="status">
              <p>The password of <bdi>${n.password.email}</bdi>, shown only this once:</p>
              <p><code class="secret">${n.password.value}</code></p>
              <p>Give it to them in person or by phone; they can change it on Your account.</p>
            </div>`
          : ''
      }
      <p>
        Everyone who can sign in to this school. Admins can also see every app and the activity of the school;
        staff see the apps they allowed themselves.
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Created</th>
            <th scope="col">Sign-in</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          ${p.accounts.map((a) => row(a, p.account, csrf))}
        </tbody>
      </table>
      <p class="note">
        Unlock lets a person who mistyped their password too often sign in again at once. Reset password gives
        them a new one and signs them out everywhere; the apps they allowed keep their access. With password
        sign-in off, a person signs in with a passkey or a recovery code only (both on Your account). Disable
        and Remove stop them signing in and end the access of every app they allowed. The school always keeps
        one enabled admin, and nobody disables, removes or demotes themself.
      </p>
      <section class="card" aria-labelledby="create-staff">
        <h2 id="create-staff">Add a staff account</h2>
        <form method="post" action="${ACCOUNT_PATH}/staff/create">
          ${csrf}
          ${formField({
            id: 'email',
            label: 'Email',
            type: 'email',
            autocomplete: 'off',
            value: n.typed?.email ?? '',
          })}
          ${formField({ id: 'name', label: 'Name', autocomplete: 'off', value: n.typed?.name ?? '' })}
          ${newPasswordField({
            name: 'password',
            label: 'Password',
            hint: `At least ${PASSWORD_MIN_LENGTH} characters. Leave it empty and one is made for you, shown once.`,
            optional: true,
          })}
          <button type="submit">Add staff account</button>
        </form>
      </section>`,
  );
}

const CONFIRM_WORDS: Record<ConfirmedAction, { title: string; what: string; button: string }> = {
  'reset-password': {
    title: 'Reset this password?',
    what:
      'A new password is made and shown to you once; the one they know stops working. Every session of ' +
      'theirs ends at once. The apps they allowed keep their access.',
    button: 'Reset password',
  },
  'remove-passkeys': {
    title: 'Remove their passkeys and recovery codes?',
    what:
      'Every passkey and recovery code of theirs stops signing in at once, and every session of theirs ends. ' +
      'They sign in with their password again, and add a new passkey on Your account. The apps they allowed ' +
      'keep their access.',
    button: 'Remove passkeys and codes',
  },
  disable: {
    title: 'Disable this account?',
    what:
      'They can no longer sign in, and every session of theirs ends at once. Every app they allowed loses ' +
      'its access at once. You can enable the account again later; they would then allow their apps again.',
    button: 'Disable account',
  },
  remove: {
    title: 'Remove this account?',
    what:
      'The account is deleted: they can no longer sign in, every session of theirs ends and every app they ' +
      'allowed loses its access, at once. This cannot be undone; the activity log keeps what they did.',
    button: 'Remove account',
  },
};

/** The confirmation page of Reset password, Disable and Remove: what happens, and the form that does it. */
export function staffConfirmPage(p: {
  account: AccountProfile;
  csrf: string;
  target: AccountProfile;
  action: ConfirmedAction;
  /** For Remove passkeys and codes: what they are. */
  factors?: AccountFactors;
}): string {
  const words = CONFIRM_WORDS[p.action];
  return accountPage(
    words.title,
    p.account,
    'staff',
    html`<section class="card">
        <p>
          <bdi>${p.target.name}</bdi> (<bdi>${p.target.email}</bdi>),
          ${p.target.role === 'admin' ? 'admin' : 'staff'}
        </p>
      </section>
      ${p.factors ? html`<p>${factorsText(p.factors)}.</p>` : ''}
      <p>${words.what}</p>
      ${confirmForm({
        action: `${ACCOUNT_PATH}/staff/${p.action}`,
        csrf: p.csrf,
        target: { name: 'account_id', value: p.target._id },
        button: words.button,
        cancel: { href: `${ACCOUNT_PATH}/staff`, text: 'Cancel: back to Staff accounts' },
      })}`,
  );
}
