/**
 * The account pages under `/oauth/account`: Connected apps and Your account for everyone
 * signed in; All clients, Activity, Staff accounts, the Access register and its term review for the
 * school's admins (`role: admin` on the
 * account; the seeded admin is one). Built like the interaction pages (interactions/router.ts):
 * never cached (`noStore`), the signed-in person loaded first (`requireSignIn`), every form checked
 * against its zod schema, its CSRF token and its Origin before it acts, then one named step.
 */
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { ACCOUNT_PATH } from '@school/shared';
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
import { ACCOUNT_CHANGES } from '../accounts/account-status.js';
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

/** Builds the router of the account pages. */
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

  const router = new Router<AccountState>({ prefix: ACCOUNT_PATH });
  router.use(noStore);
  const home = (ctx: { status: number; redirect(url: string): void }) => {
    ctx.status = 303;
    ctx.redirect(accountPath('apps'));
  };
  router.get('/', home);
  // Back from signing in (provider/account-console.ts): the login session is set; the code is unused.
  router.get('/signed-in', signedIn, own.afterSignIn);
  router.get('/apps', signedIn, apps.show);
  router.get('/apps/revoke', signedIn, apps.confirm);
  router.post('/apps/revoke', forms, signedIn, check(revokeForm), apps.revoke);
  router.post('/apps/drop-unused', forms, signedIn, check(dropUnusedForm), dropUnusedStep(deps, notices));
  router.get('/clients', signedIn, requireAdmin, clients.show);
  router.get('/clients/delete', signedIn, requireAdmin, clients.confirm);
  const deleteCheck = checkAccountForm(deleteClientForm, formCheck);
  router.post('/clients/delete', forms, signedIn, requireAdmin, deleteCheck, clients.remove);
  router.get('/activity', signedIn, requireAdmin, activity.show);
  router.get('/app-reviews', signedIn, requireAdmin, reviews.show);
  router.post('/app-reviews', forms, signedIn, requireAdmin, check(reviewForm), reviews.review);
  router.get('/account', signedIn, own.show);
  router.post('/account/password', forms, signedIn, check(changePasswordForm), ...own.changePassword);
  router.get('/account/sign-out-everywhere', signedIn, own.confirmSignOutEverywhere);
  router.post(
    '/account/sign-out-everywhere',
    forms,
    signedIn,
    check(signOutEverywhereForm),
    own.signOutEverywhere,
  );
  router.post('/account/passkeys', forms, signedIn, check(addPasskeyForm), own.addPasskey);
  router.get('/account/passkeys/remove', signedIn, own.confirmRemovePasskey);
  router.post(
    '/account/passkeys/remove',
    forms,
    signedIn,
    check(removePasskeyForm),
    own.requireProof,
    own.removePasskey,
  );
  router.post('/account/confirm/passkey', forms, signedIn, check(confirmPasskeyForm), own.proof.withPasskey);
  router.post(
    '/account/confirm/password',
    forms,
    signedIn,
    check(confirmPasswordForm),
    ...own.proof.withPassword,
  );
  router.get('/account/recovery-codes', signedIn, own.confirmNewRecoveryCodes);
  router.post('/account/recovery-codes', forms, signedIn, check(recoveryCodesForm), ...own.newRecoveryCodes);
  router.get('/staff', signedIn, requireAdmin, staff.show);
  router.post('/staff/create', forms, signedIn, requireAdmin, check(createStaffForm), staff.create);
  router.post('/staff/unlock', forms, signedIn, requireAdmin, check(accountActionForm), staff.unlock);
  router.get('/staff/confirm', signedIn, requireAdmin, staff.confirm);
  router.post(
    '/staff/password-sign-in',
    forms,
    signedIn,
    requireAdmin,
    check(passwordSwitchForm),
    staff.switchPassword,
  );
  router.post('/staff/reset-password', forms, signedIn, requireAdmin, check(accountActionForm), staff.reset);
  router.post(
    '/staff/remove-passkeys',
    forms,
    signedIn,
    requireAdmin,
    check(accountActionForm),
    staff.removePasskeys,
  );
  router.get('/roles', signedIn, requireAdmin, roles.show);
  router.post('/roles/create', forms, signedIn, requireAdmin, check(createRoleForm), roles.create);
  router.post('/roles/ceiling', forms, signedIn, requireAdmin, check(ceilingForm), roles.ceiling);
  router.post('/roles/remove', forms, signedIn, requireAdmin, check(removeRoleForm), roles.remove);
  router.get('/approvals', signedIn, requireAdmin, approvals.show);
  router.post('/approvals/decide', forms, signedIn, requireAdmin, check(decideForm), approvals.decide);
  for (const change of ACCOUNT_CHANGES)
    router.post(
      `/staff/${change}`,
      forms,
      signedIn,
      requireAdmin,
      check(accountActionForm),
      staff.change(change),
    );
  router.get('/register', signedIn, requireAdmin, register.show);
  router.get('/register/export', signedIn, requireAdmin, register.download);
  router.get('/term-review', signedIn, requireAdmin, review.show);
  router.post('/term-review', forms, signedIn, requireAdmin, check(termReviewForm), review.act);
  return router;
}
