/**
 * Staff accounts (account-pages/staff-accounts.ts): every account with its lock state, the buttons
 * that unlock one or reset its password, and the form that creates a staff account. A password set
 * by this page is shown once, on the answer to the form that set it, and nowhere else.
 */
import { ACCOUNT_PATH } from '@school/shared';
import type { ListedAccount } from '../accounts/account-admin.js';
import type { AccountProfile } from '../accounts/account-store.js';
import { PASSWORD_MIN_LENGTH } from '../accounts/password-rule.js';
import type { AccountLockState } from '../accounts/login-guard.js';
import { html, type SafeHtml } from '../pages/html.js';
import { accountPage, formNotice, newPasswordField, when } from './views.js';

/** A message at the top of the page; `password` is a password to show this once. */
export interface StaffNotice {
  error?: string;
  done?: string;
  password?: { email: string; value: string };
}

/** The lock state in words. */
export function lockText(lock: AccountLockState): string {
  if (lock.lockedFrom.length)
    return `Locked from ${lock.lockedFrom.length === 1 ? 'one address' : `${lock.lockedFrom.length} addresses`}`;
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

function row(a: ListedAccount, self: AccountProfile, csrf: SafeHtml): SafeHtml {
  const action = (path: string, label: string, danger = false) =>
    html`<form method="post" action="${ACCOUNT_PATH}/staff/${path}">
      ${csrf}<input type="hidden" name="account_id" value="${a._id}" />
      <button type="submit" class="${danger ? 'danger' : 'secondary'}">${label}</button>
    </form>`;
  const held = a.lock.lockedFrom.length > 0 || a.lock.failures > 0;
  return html`<tr>
    <td data-label="Email"><bdi>${a.email}</bdi>${a._id === self._id ? ' (you)' : ''}</td>
    <td data-label="Name"><bdi>${a.name}</bdi></td>
    <td data-label="Role" class="nowrap">${a.role === 'admin' ? 'Admin' : 'Staff'}</td>
    <td data-label="Created" class="nowrap">${when(a.createdAt)}</td>
    <td data-label="Sign-in">
      ${lockText(a.lock)}${a.passwordOff ? html`<br /><strong>Password sign-in off</strong>` : ''}
    </td>
    <td data-label="Actions">
      <div class="actions">
        ${held ? action('unlock', 'Unlock') : ''}
        ${
          a._id === self._id
            ? html`<a href="${ACCOUNT_PATH}/account">Your account</a>`
            : html`${action('reset-password', 'Reset password', true)} ${passwordSwitch(a, csrf)}`
        }
      </div>
    </td>
  </tr>`;
}

/** The page. */
export function staffAccountsPage(p: {
  account: AccountProfile;
  csrf: string;
  accounts: ListedAccount[];
  notice?: StaffNotice;
}): string {
  const csrf = html`<input type="hidden" name="csrf" value="${p.csrf}" />`;
  const n = p.notice ?? {};
  return accountPage(
    'Staff accounts',
    p.account,
    'staff',
    html`${formNotice(n)}
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
        sign-in off, a person signs in with a passkey or a recovery code only (both on Your account).
      </p>
      <section class="card" aria-labelledby="create-staff">
        <h2 id="create-staff">Add a staff account</h2>
        <form method="post" action="${ACCOUNT_PATH}/staff/create">
          ${csrf}
          <label for="email">Email</label>
          <input id="email" type="email" name="email" autocomplete="off" required />
          <label for="name">Name</label>
          <input id="name" type="text" name="name" autocomplete="off" required />
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
