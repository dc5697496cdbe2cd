/**
 * Your account, for everyone signed in: passkeys (add, list, remove), recovery codes, change
 * password and sign out everywhere.
 *
 * Adding a passkey answers the WebAuthn options the page was rendered with (their challenge bound to
 * this login session, single use; passkeys/passkey-ceremonies.ts). Recovery codes are made on a POST
 * and shown in its answer only, never again. Each is audited.
 *
 * Changing the password needs the current one, checked like a sign-in: the login guard
 * (accounts/login-guard.ts) counts a wrong one as a failed sign-in of this account from this
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
import { displayTextProblem } from '@school/shared';
import { scriptNonce, sendPage } from '../pages/html.js';
import { PasskeyRefused } from '../passkeys/passkey-ceremonies.js';
import type { Passkeys } from '../passkeys/passkeys.js';
import { PASSKEY_NAME_MAX } from './passkeys-view.js';
import { accountPath, type AccountContext, type AccountStep } from './signed-in.js';
import {
  newRecoveryCodesConfirmPage,
  removePasskeyConfirmPage,
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

/** The add-a-passkey form: its name and the WebAuthn answer (JSON) the page's script put in. */
export const addPasskeyForm = z.object({
  csrf: z.string(),
  name: z.string().max(1000),
  response: z.string().max(12_000),
});
type AddPasskeyForm = z.infer<typeof addPasskeyForm>;

/** The Remove form of one passkey. */
export const removePasskeyForm = z.object({ csrf: z.string(), passkey_id: z.string().min(1).max(1000) });
type RemovePasskeyForm = z.infer<typeof removePasskeyForm>;

/** The make-new-recovery-codes form: the CSRF token only. */
export const recoveryCodesForm = z.object({ csrf: z.string() });

const DONE: Record<string, string> = {
  password: 'Your password is changed. Everywhere else you were signed in has been signed out.',
  'passkey-added': 'Your passkey is added. You can sign in with it now.',
  'passkey-removed': 'The passkey is removed. It no longer signs you in.',
};

/** What the page says of a passkey answer it could not use. */
const PASSKEY_NOT_ADDED = 'The passkey was not added: the browser’s answer could not be verified. Try again.';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The page, and the steps of its forms. */
export function yourAccountSteps(deps: AccountAdminDeps & { passkeys: Passkeys }): {
  show: AccountStep;
  changePassword: AccountStep<{ form: ChangePasswordForm }>[];
  confirmSignOutEverywhere: AccountStep;
  confirmRemovePasskey: AccountStep;
  confirmNewRecoveryCodes: AccountStep;
  signOutEverywhere: AccountStep<{ form: z.infer<typeof signOutEverywhereForm> }>;
  addPasskey: AccountStep<{ form: AddPasskeyForm }>;
  removePasskey: AccountStep<{ form: RemovePasskeyForm }>;
  newRecoveryCodes: AccountStep;
} {
  const { accounts, loginGuard, audit, passkeys } = deps;
  /** The page, with a fresh registration challenge; `extra` for what one answer alone shows. */
  const answer = async (
    ctx: AccountContext,
    status: number,
    error?: string,
    done?: string,
    extra: { newRecoveryCodes?: string[]; passkeyName?: string } = {},
  ) => {
    const { account, sessionUid } = ctx.state;
    const nonce = scriptNonce();
    const [list, options, recoveryCodesLeft] = await Promise.all([
      passkeys.store.list(account._id),
      passkeys.ceremonies.registrationOptions(account, sessionUid),
      passkeys.recoveryCodes.unused(account._id),
    ]);
    sendPage(
      ctx,
      status,
      yourAccountPage({
        account,
        csrf: ctx.state.csrf,
        error,
        done,
        passkeys: {
          available: passkeys.ceremonies.available,
          passkeys: list,
          registrationOptions: JSON.stringify(options),
          nonce,
          recoveryCodesLeft,
          ...extra,
        },
      }),
      [],
      passkeys.ceremonies.available ? nonce : undefined, // no passkey section: no script at all
    );
  };
  const audited = (ctx: AccountContext) => ({
    requestId: ctx.state.requestId,
    ip: ctx.ip,
    accountId: ctx.state.account._id,
  });
  const actorOf = (ctx: AccountContext) => ({
    actor: ctx.state.account._id,
    requestId: ctx.state.requestId,
    ip: ctx.ip,
  });

  return {
    confirmSignOutEverywhere: function confirmSignOutEverywhere(ctx) {
      sendPage(ctx, 200, signOutEverywhereConfirmPage(ctx.state));
      return Promise.resolve();
    },
    confirmNewRecoveryCodes: async function confirmNewRecoveryCodes(ctx) {
      const left = await passkeys.recoveryCodes.unused(ctx.state.account._id);
      if (left === 0) {
        // Nothing would stop working: the page's own form makes them without asking.
        ctx.status = 303;
        ctx.redirect(accountPath('account'));
        return;
      }
      sendPage(ctx, 200, newRecoveryCodesConfirmPage({ ...ctx.state, left }));
    },
    confirmRemovePasskey: async function confirmRemovePasskey(ctx) {
      const id = typeof ctx.query.passkey_id === 'string' ? ctx.query.passkey_id : '';
      const passkey = (await passkeys.store.list(ctx.state.account._id)).find((p) => p.id === id);
      if (!passkey) return answer(ctx, 404, 'You have no such passkey any more.');
      sendPage(ctx, 200, removePasskeyConfirmPage({ ...ctx.state, passkey }));
    },
    show: async function showYourAccount(ctx) {
      const done = typeof ctx.query.done === 'string' ? DONE[ctx.query.done] : undefined;
      await answer(ctx, 200, undefined, done);
    },
    addPasskey: async function addPasskey(ctx) {
      const { account, sessionUid, form } = ctx.state;
      const name = form.name.trim();
      const problem =
        name.length > PASSKEY_NAME_MAX
          ? `is longer than ${PASSKEY_NAME_MAX} characters`
          : displayTextProblem(name);
      if (!name || problem)
        return answer(
          ctx,
          400,
          `Give the passkey a name${problem ? `: the name ${problem}` : ''}.`,
          undefined,
          {
            passkeyName: form.name,
          },
        );
      try {
        await passkeys.ceremonies.register(account._id, sessionUid, form.response, name);
      } catch (err) {
        if (!(err instanceof PasskeyRefused)) throw err;
        void audit.record('passkey_refused', {
          ...audited(ctx),
          details: { ceremony: 'registration', reason: err.reason },
        });
        return answer(ctx, 400, PASSKEY_NOT_ADDED, undefined, { passkeyName: form.name });
      }
      void audit.record('passkey_registered', { ...audited(ctx), details: { name } });
      ctx.status = 303;
      ctx.redirect(`${accountPath('account')}?done=passkey-added`);
    },
    removePasskey: async function removePasskey(ctx) {
      const removed = await passkeys.store.remove(ctx.state.account._id, ctx.state.form.passkey_id);
      if (removed === undefined) return answer(ctx, 404, 'You have no such passkey any more.');
      void audit.record('passkey_removed', { ...audited(ctx), details: { name: removed } });
      ctx.status = 303;
      ctx.redirect(`${accountPath('account')}?done=passkey-removed`);
    },
    newRecoveryCodes: async function newRecoveryCodes(ctx) {
      const codes = await passkeys.recoveryCodes.generate(ctx.state.account._id);
      void audit.record('recovery_codes_generated', { ...audited(ctx), details: { count: codes.length } });
      await answer(ctx, 200, undefined, undefined, { newRecoveryCodes: codes });
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
          await next();
          return;
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
