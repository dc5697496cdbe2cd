/**
 * Your account, for everyone signed in: change password and sign out everywhere.
 *
 * Changing the password needs the current one, checked like a sign-in: the login guard
 * (interactions/login-guard.ts) counts a wrong one as a failed sign-in of this account from this
 * address, refuses the pair once it has failed too often, and holds failed answers back, so this form
 * is no faster a way to guess a password than the sign-in page. The new password follows the one
 * rule (accounts/password-rule.ts); every other session of the account then ends. Sign out everywhere
 * ends every session, this one too. The apps' grants stay: the pages say so.
 */
import { z } from 'zod';
import {
  changePassword,
  PasswordRefused,
  signOutEverywhere,
  type AccountAdminDeps,
} from '../accounts/account-admin.js';
import { sendPage } from '../interactions/html.js';
import { accountPath, type AccountContext, type AccountStep } from './signed-in.js';
import {
  signOutEverywhereConfirmPage,
  signedOutEverywherePage,
  yourAccountPage,
} from './your-account-view.js';

/** The change-password form. */
export const changePasswordForm = z.object({
  csrf: z.string(),
  current: z.string().max(1024),
  password: z.string().max(4096),
  confirm: z.string().max(4096),
});
type ChangePasswordForm = z.infer<typeof changePasswordForm>;

/** The sign-out-everywhere form: the CSRF token only. */
export const signOutEverywhereForm = z.object({ csrf: z.string() });

const DONE: Record<string, string> = {
  password: 'Your password is changed. Everywhere else you were signed in has been signed out.',
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The page, and the steps of its two forms. */
export function yourAccountSteps(deps: AccountAdminDeps): {
  show: AccountStep;
  changePassword: AccountStep<{ form: ChangePasswordForm }>[];
  confirmSignOutEverywhere: AccountStep;
  signOutEverywhere: AccountStep<{ form: z.infer<typeof signOutEverywhereForm> }>;
} {
  const { accounts, loginGuard, audit } = deps;
  const answer = (ctx: AccountContext, status: number, error?: string, done?: string) =>
    sendPage(ctx, status, yourAccountPage({ account: ctx.state.account, csrf: ctx.state.csrf, error, done }));
  const actorOf = (ctx: AccountContext) => ({
    actor: ctx.state.account._id,
    requestId: ctx.state.requestId,
    ip: ctx.ip,
  });

  return {
    confirmSignOutEverywhere: async function confirmSignOutEverywhere(ctx) {
      sendPage(ctx, 200, signOutEverywhereConfirmPage(ctx.state));
    },
    show: async function showYourAccount(ctx) {
      const done = typeof ctx.query.done === 'string' ? DONE[ctx.query.done] : undefined;
      answer(ctx, 200, undefined, done);
    },
    changePassword: [
      async function throttlePasswordCheck(ctx, next) {
        const verdict = await loginGuard.before(ctx.state.account.email, ctx.ip);
        if (verdict.refusedForSeconds > 0) {
          ctx.set('Retry-After', String(verdict.refusedForSeconds));
          const minutes = Math.ceil(verdict.refusedForSeconds / 60);
          return answer(ctx, 429, `Too many wrong passwords. Try again in ${minutes} minute(s).`);
        }
        if (verdict.delayMs) await sleep(verdict.delayMs);
        await next();
      },
      async function checkCurrentPassword(ctx, next) {
        const { account, form } = ctx.state;
        if (await accounts.checkPassword(account._id, form.current)) {
          await loginGuard.succeeded(account.email, ctx.ip);
          return next();
        }
        const { requestId } = ctx.state;
        void audit.record('login_failed', {
          requestId,
          ip: ctx.ip,
          accountId: account._id,
          details: { email: account.email, form: 'change_password' },
        });
        const { delayMs, attack } = await loginGuard.failed(account.email, ctx.ip);
        if (attack)
          void audit.record('login_attack_suspected', {
            requestId,
            ip: ctx.ip,
            accountId: account._id,
            details: { email: account.email, ...attack },
          });
        if (delayMs) await sleep(delayMs);
        return answer(ctx, 401, 'Your current password is not right. Your password is unchanged.');
      },
      async function setNewPassword(ctx) {
        const { account, form, sessionId } = ctx.state;
        if (form.password !== form.confirm)
          return answer(ctx, 400, 'The two new passwords are not the same. Your password is unchanged.');
        if (form.password === form.current)
          return answer(ctx, 400, 'The new password is your current one. Choose another.');
        try {
          await changePassword(deps, account._id, form.password, sessionId, actorOf(ctx));
        } catch (err) {
          if (err instanceof PasswordRefused) return answer(ctx, 400, err.message);
          throw err;
        }
        ctx.status = 303;
        ctx.redirect(`${accountPath('account')}?done=password`);
      },
    ],
    signOutEverywhere: async function signOutEverywhereStep(ctx) {
      await signOutEverywhere(deps, ctx.state.account._id, actorOf(ctx));
      sendPage(ctx, 200, signedOutEverywherePage());
    },
  };
}
