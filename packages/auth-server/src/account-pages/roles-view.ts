/**
 * The Roles page (roles.ts): each role with its ceiling, the scopes a person in it may allow an app
 * by themself, as checkboxes an admin changes; the admin role, which may allow every scope, without
 * them; a form to add a role. What lowering a ceiling does is said before the button.
 */
import { ACCOUNT_PATH, API_SCOPES } from '@school/shared';
import type { AccountProfile } from '../accounts/account-store.js';
import { ANY_SCOPE, type Role } from '../accounts/roles.js';
import { formField } from '../pages/form-field.js';
import { html, type SafeHtml } from '../pages/html.js';
import { accountPage, formNotice } from './views.js';

/** A role as the page lists it: how many accounts hold it. */
export interface ListedRole extends Role {
  holders: number;
}

const plural = (n: number, one: string, many: string) => (n === 1 ? `1 ${one}` : `${n} ${many}`);

function scopeBox(role: string, scope: (typeof API_SCOPES)[number], ticked: boolean): SafeHtml {
  const id = `ceiling-${role}-${scope.name.replace(/[^a-z]/g, '-')}`;
  return html`<li>
    <input type="checkbox" id="${id}" name="scope" value="${scope.name}" ${ticked ? html`checked` : ''} />
    <label for="${id}">${scope.consentText} <code>${scope.name}</code></label>
  </li>`;
}

function roleCard(role: ListedRole, csrf: SafeHtml): SafeHtml {
  const heading = `role-${role.name}`;
  const holders = plural(role.holders, 'account holds it', 'accounts hold it');
  if (role.ceiling.includes(ANY_SCOPE))
    return html`<section class="card" aria-labelledby="${heading}">
      <h2 id="${heading}">${role.label} <code>${role.name}</code></h2>
      <p>${holders}. Admins may allow every scope, and use the admins’ pages.</p>
    </section>`;
  const reads = API_SCOPES.filter((s) => !s.changesData);
  const writes = API_SCOPES.filter((s) => s.changesData);
  return html`<section class="card" aria-labelledby="${heading}">
    <h2 id="${heading}">${role.label} <code>${role.name}</code></h2>
    <p>${holders}. Signing in, name and email may always be allowed.</p>
    <form method="post" action="${ACCOUNT_PATH}/roles/ceiling">
      ${csrf}
      <input type="hidden" name="role" value="${role.name}" />
      <fieldset class="choices">
        <legend>May allow apps by themself to</legend>
        <p class="group">See (read only):</p>
        <ul class="scopes choices">
          ${reads.map((s) => scopeBox(role.name, s, role.ceiling.includes(s.name)))}
        </ul>
        <p class="group writes"><span class="flag">Changes data</span> Create, change and delete:</p>
        <ul class="scopes choices writes">
          ${writes.map((s) => scopeBox(role.name, s, role.ceiling.includes(s.name)))}
        </ul>
      </fieldset>
      <p class="note">
        Unticking a scope takes it back at once from the apps these accounts allowed it to (unless an admin
        approved it for them): their current access tokens end, and their next refresh gets what is left.
      </p>
      <button type="submit">Save what ${role.label} may allow</button>
    </form>
    ${
      role.holders
        ? ''
        : html`<form method="post" action="${ACCOUNT_PATH}/roles/remove">
            ${csrf}
            <input type="hidden" name="role" value="${role.name}" />
            <button type="submit" class="secondary">Remove the role ${role.label}</button>
          </form>`
    }
  </section>`;
}

/** The page. */
export function rolesPage(p: {
  account: AccountProfile;
  csrf: string;
  roles: ListedRole[];
  error?: string;
  done?: string;
  typed?: { name: string; label: string };
}): string {
  const csrf = html`<input type="hidden" name="csrf" value="${p.csrf}" />`;
  return accountPage(
    'Roles',
    p.account,
    'roles',
    html`${formNotice(p)}
      <p>
        Every account has a role. A role says which scopes a person in it may allow an app by themself; for
        anything more, the consent page offers <strong>Ask an admin</strong>, and the request waits on
        <a href="${ACCOUNT_PATH}/approvals">Approvals</a>.
      </p>
      ${p.roles.map((r) => roleCard(r, csrf))}
      <section class="card" aria-labelledby="add-role">
        <h2 id="add-role">Add a role</h2>
        <form method="post" action="${ACCOUNT_PATH}/roles/create">
          ${csrf}
          ${formField({
            id: 'role-name',
            name: 'name',
            label: 'Name',
            autocomplete: 'off',
            hint: 'Lower-case letters, digits and "-", e.g. teacher. Accounts and the command line use it.',
            value: p.typed?.name ?? '',
            attributes: html`pattern="[a-z][a-z0-9\\-]{0,31}" maxlength="32"`,
          })}
          ${formField({
            id: 'role-label',
            name: 'label',
            label: 'Label',
            autocomplete: 'off',
            hint: 'As the pages say it, e.g. Teacher.',
            value: p.typed?.label ?? '',
            attributes: html`maxlength="60"`,
          })}
          <p class="note">A new role may allow nothing but signing in until you tick its scopes.</p>
          <button type="submit">Add role</button>
        </form>
      </section>`,
  );
}
