/**
 * The account pages under `/oauth/account`: Connected apps and Your account for everyone
 * signed in; All clients, Activity and Staff accounts for the school's admins (`role: admin` on the
 * account; the seeded admin is one). Built like the interaction pages (interactions/router.ts):
 * never cached (`noStore`), the signed-in person loaded first (`requireSignIn`), every form checked
 * against its zod schema, its CSRF token and its Origin before it acts, then one named step.
 */
import type Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { PAGE_ROUTERS } from '@school/shared';
import { pageRouter } from '../pages/page-router.js';
import type { RedisClient } from '@school/shared';
import type { Provider } from 'oidc-provider';
import type { z } from 'zod';
import type { AccountStore } from '../accounts/account-store.js';
import type { AuditLog } from '../audit/audit-log.js';
import { CsrfTokens } from '../pages/csrf.js';
import { noStore } from '../pages/error-page.js';
import { activitySteps } from './activity.js';
import { allClientsSteps, deleteClientForm } from './all-clients.js';
import type { LoginGuard } from '../accounts/login-guard.js';
import { connectedAppsSteps, revokeForm } from './connected-apps.js';
import { dropUnusedForm, dropUnusedStep } from './drop-unused-scopes.js';
import { requireAdmin } from './require-admin.js';
import { accountPath, checkAccountForm, requireSignIn, type AccountState } from './signed-in.js';
import {
  accountActionForm,
  createStaffForm,
  passwordSwitchForm,
  staffAccountsSteps,
} from './staff-accounts.js';
import {
  addPasskeyForm,
  changePasswordForm,
  recoveryCodesForm,
  removePasskeyForm,
  signOutEverywhereForm,
  yourAccountSteps,
} from './your-account.js';
import type { Passkeys } from '../passkeys/passkeys.js';
import { confirmPasskeyForm, confirmPasswordForm } from './your-account-proof.js';

/** What the account pages need. */
export interface AccountPagesDeps {
  provider: Provider;
  accounts: AccountStore;
  audit: AuditLog;
  redis: RedisClient;
  /** The sign-in throttle: a wrong current password counts as a failed sign-in; Unlock clears it. */
  loginGuard: LoginGuard;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  /** The public origin, for the Origin check and the sign-in request. */
  baseUrl: string;
  /** The key of the forms' CSRF tokens. */
  csrfSecret: string;
  /** Passkeys and recovery codes (Your account), the password switch (Staff accounts). */
  passkeys: Passkeys;
}

/** Builds the router of the account pages. */
export function accountRouter(deps: AccountPagesDeps): Router<AccountState> {
  const csrf = new CsrfTokens(deps.csrfSecret);
  const formCheck = { csrf, ownOrigin: new URL(deps.baseUrl).origin };
  const signedIn = requireSignIn(deps.provider, deps.accounts, csrf, deps.baseUrl);
  const forms = bodyParser({ enableTypes: ['form'], formLimit: '16kb', encoding: 'utf-8' });
  const apps = connectedAppsSteps(deps, csrf);
  const clients = allClientsSteps(deps);
  const activity = activitySteps(deps);
  const own = yourAccountSteps(deps);
  const staff = staffAccountsSteps(deps);
  const check = <T extends { csrf: string }>(schema: z.ZodType<T>) => checkAccountForm(schema, formCheck);

  const home = (ctx: { status: number; redirect(url: string): void }) => {
    ctx.status = 303;
    ctx.redirect(accountPath('apps'));
  };
  const admin = [signedIn, requireAdmin];
  const staffForm = [forms, ...admin, check(accountActionForm)];
  return pageRouter(
    PAGE_ROUTERS.account,
    {
      home: { read: [home] },
      // Back from signing in (provider/account-console.ts): the login session is set; the code is unused.
      signedIn: { read: [signedIn, own.afterSignIn] },
      apps: { read: [signedIn, apps.show] },
      revokeApp: {
        read: [signedIn, apps.confirm],
        form: [forms, signedIn, check(revokeForm), apps.revoke],
      },
      dropUnused: { form: [forms, signedIn, check(dropUnusedForm), dropUnusedStep(deps)] },
      clients: { read: [...admin, clients.show] },
      deleteClient: {
        read: [...admin, clients.confirm],
        form: [forms, ...admin, check(deleteClientForm), clients.remove],
      },
      activity: { read: [...admin, activity.show] },
      account: { read: [signedIn, own.show] },
      changePassword: { form: [forms, signedIn, check(changePasswordForm), ...own.changePassword] },
      signOutEverywhere: {
        read: [signedIn, own.confirmSignOutEverywhere],
        form: [forms, signedIn, check(signOutEverywhereForm), own.signOutEverywhere],
      },
      addPasskey: { form: [forms, signedIn, check(addPasskeyForm), own.addPasskey] },
      removePasskey: {
        read: [signedIn, own.confirmRemovePasskey],
        form: [forms, signedIn, check(removePasskeyForm), own.requireProof, own.removePasskey],
      },
      confirmPasskey: { form: [forms, signedIn, check(confirmPasskeyForm), own.proof.withPasskey] },
      confirmPassword: { form: [forms, signedIn, check(confirmPasswordForm), ...own.proof.withPassword] },
      recoveryCodes: {
        read: [signedIn, own.confirmNewRecoveryCodes],
        form: [forms, signedIn, check(recoveryCodesForm), ...own.newRecoveryCodes],
      },
      staff: { read: [...admin, staff.show] },
      staffConfirm: { read: [...admin, staff.confirm] },
      createStaff: { form: [forms, ...admin, check(createStaffForm), staff.create] },
      unlock: { form: [...staffForm, staff.unlock] },
      passwordSignIn: { form: [forms, ...admin, check(passwordSwitchForm), staff.switchPassword] },
      resetPassword: { form: [...staffForm, staff.reset] },
      removePasskeys: { form: [...staffForm, staff.removePasskeys] },
      disable: { form: [...staffForm, staff.change('disable')] },
      enable: { form: [...staffForm, staff.change('enable')] },
      remove: { form: [...staffForm, staff.change('remove')] },
      promote: { form: [...staffForm, staff.change('promote')] },
      demote: { form: [...staffForm, staff.change('demote')] },
    },
    [noStore],
  );
}
