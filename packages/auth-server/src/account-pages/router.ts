/**
 * The account pages under `/oauth/account`: Connected apps and Your account for everyone
 * signed in; All clients, Activity, Staff accounts, the Access register and its term review for the
 * school's admins (`role: admin` on the
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
import type { ApprovalStore } from '../accounts/approval-requests.js';
import type { RoleStore } from '../accounts/roles.js';
import { approvalsSteps, decideForm } from './approvals.js';
import { tellDecisions } from './decision-notices.js';
import { ceilingForm, createRoleForm, removeRoleForm, rolesSteps } from './roles.js';
import type { AuditLog } from '../audit/audit-log.js';
import { CsrfTokens } from '../pages/csrf.js';
import { noStore } from '../pages/error-page.js';
import { activitySteps } from './activity.js';
import { appReviewsSteps, reviewForm } from './app-reviews.js';
import type { UnreviewedMeans } from '../storage/app-reviews.js';
import { allClientsSteps, deleteClientForm } from './all-clients.js';
import type { LoginGuard } from '../accounts/login-guard.js';
import { connectedAppsSteps, revokeForm } from './connected-apps.js';
import { dropUnusedForm, dropUnusedStep } from './drop-unused-scopes.js';
import { OneTimeNotices } from './one-time-notice.js';
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
import type { AccessCalendar } from '../interactions/access-duration.js';
import { registerSteps } from './register-page.js';
import { termReviewForm, termReviewSteps } from './term-review.js';
import { confirmPasskeyForm, confirmPasswordForm } from './your-account-proof.js';

/** What the account pages need. */
export interface AccountPagesDeps {
  provider: Provider;
  accounts: AccountStore;
  /** The school's roles and their ceilings (Roles). */
  roles: RoleStore;
  /** Ask an admin's requests (Approvals, and the notice of a decision to the person who asked). */
  approvals: ApprovalStore;
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
  /** The school's calendar: the term review reviews access against the end of its term. */
  calendar: AccessCalendar;
  /** APP_REVIEW_UNREVIEWED, which App reviews explains. */
  unreviewed: UnreviewedMeans;
}

/** Builds the router of the account pages (its routes: PAGE_ROUTERS.account in @school/shared). */
export function accountRouter(deps: AccountPagesDeps): Router<AccountState> {
  const csrf = new CsrfTokens(deps.csrfSecret);
  const formCheck = { csrf, ownOrigin: new URL(deps.baseUrl).origin };
  const signedInOnly = requireSignIn(deps.provider, deps.accounts, csrf, deps.baseUrl);
  const told = tellDecisions(deps.approvals);
  // Every page (GET) tells the person what an admin decided on their requests since their last visit.
  const signedIn: typeof signedInOnly = async (ctx, next) =>
    signedInOnly(ctx, () => (ctx.method === 'GET' ? told(ctx, next) : next()));
  const forms = bodyParser({ enableTypes: ['form'], formLimit: '16kb', encoding: 'utf-8' });
  const notices = new OneTimeNotices(deps.redis, deps.prefix);
  const apps = connectedAppsSteps(deps, csrf, notices);
  const clients = allClientsSteps(deps);
  const activity = activitySteps(deps);
  const own = yourAccountSteps(deps);
  const staff = staffAccountsSteps(deps);
  const register = registerSteps(deps, deps.calendar.termEnds !== undefined);
  const review = termReviewSteps(deps, csrf);
  const reviews = appReviewsSteps(deps);
  const roles = rolesSteps(deps);
  const approvals = approvalsSteps(deps);
  const check = <T extends { csrf: string }>(schema: z.ZodType<T>) => checkAccountForm(schema, formCheck);

  const home = (ctx: { status: number; redirect(url: string): void }) => {
    ctx.status = 303;
    ctx.redirect(accountPath('apps'));
  };
  const admin = [signedIn, requireAdmin];
  const adminForm = [forms, ...admin];
  const staffForm = [...adminForm, check(accountActionForm)];
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
      dropUnused: { form: [forms, signedIn, check(dropUnusedForm), dropUnusedStep(deps, notices)] },
      clients: { read: [...admin, clients.show] },
      deleteClient: {
        read: [...admin, clients.confirm],
        form: [...adminForm, check(deleteClientForm), clients.remove],
      },
      activity: { read: [...admin, activity.show] },
      appReviews: {
        read: [...admin, reviews.show],
        form: [...adminForm, check(reviewForm), reviews.review],
      },
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
      createStaff: { form: [...adminForm, check(createStaffForm), staff.create] },
      unlock: { form: [...staffForm, staff.unlock] },
      passwordSignIn: { form: [...adminForm, check(passwordSwitchForm), staff.switchPassword] },
      resetPassword: { form: [...staffForm, staff.reset] },
      removePasskeys: { form: [...staffForm, staff.removePasskeys] },
      disable: { form: [...staffForm, staff.change('disable')] },
      enable: { form: [...staffForm, staff.change('enable')] },
      remove: { form: [...staffForm, staff.change('remove')] },
      promote: { form: [...staffForm, staff.change('promote')] },
      demote: { form: [...staffForm, staff.change('demote')] },
      roles: { read: [...admin, roles.show] },
      createRole: { form: [...adminForm, check(createRoleForm), roles.create] },
      roleCeiling: { form: [...adminForm, check(ceilingForm), roles.ceiling] },
      removeRole: { form: [...adminForm, check(removeRoleForm), roles.remove] },
      approvals: { read: [...admin, approvals.show] },
      decideApproval: { form: [...adminForm, check(decideForm), approvals.decide] },
      register: { read: [...admin, register.show] },
      registerExport: { read: [...admin, register.download] },
      termReview: {
        read: [...admin, review.show],
        form: [...adminForm, check(termReviewForm), review.act],
      },
    },
    [noStore],
  );
}
