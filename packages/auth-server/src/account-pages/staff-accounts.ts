/**
 * Staff accounts, for the school's admins (require-admin.ts): list every account, add a staff
 * account, unlock one, reset a password, switch an account's password sign-in off or on (it then
 * signs in with a passkey or a recovery code only), disable, enable, remove, make admin, make staff.
 * The operations are accounts/account-admin.ts and accounts/account-status.ts (through
 * role-ceilings.ts `changeStanding`, so Make staff narrows the account's grants to the staff ceiling
 * as `accounts set-role` does), shared with `school-auth accounts …`, each audited with the acting
 * admin's id. An admin resets their own password on Your account instead (knowing the current one),
 * never here.
 *
 * What cannot be undone or takes something away from a colleague (Reset password, Disable, Remove)
 * opens a confirmation page first (GET `staff/confirm`), as All clients' Delete does; its form is the
 * one that acts. The Add form, refused, comes back with what was typed (but the password) and every
 * problem listed at once. Every action that succeeds answers 303 to the page, which shows what was
 * done (and a password made for someone) once (one-time-notice.ts): a reload repeats nothing.
 *
 * Each account's passkeys and unused recovery codes are listed; Remove passkeys and codes (confirmed
 * first) takes them all away and ends the account's sessions (passkeys/factor-admin.ts). Neither it
 * nor switching password sign-in off may leave an account no way to sign in (passkeys/ways-in.ts).
 */
import { NotFoundError, plural } from '@school/shared';
import { z } from 'zod';
import {
  createStaff,
  listAccounts,
  resetPassword,
  StaffRefused,
  switchPasswordSignIn,
  unlockAccount,
  type AccountAdminDeps,
} from '../accounts/account-admin.js';
import { AccountChangeRefused, type AccountChange } from '../accounts/account-status.js';
import { AccountExists } from '../accounts/account-store.js';
import { sendPage } from '../pages/html.js';
import {
  accountFactors,
  FactorRemovalRefused,
  removeFactors,
  type AccountFactors,
} from '../passkeys/factor-admin.js';
import type { Passkeys } from '../passkeys/passkeys.js';
import { lockOutProblem, waysIn } from '../passkeys/ways-in.js';
import { OneTimeNotices, withNotice } from './one-time-notice.js';
import { changeStanding, type RoleOpsDeps } from './role-ceilings.js';
import { accountPath, type AccountContext, type AccountStep } from './signed-in.js';
import {
  CONFIRMED_ACTIONS,
  lockText,
  staffAccountsPage,
  staffConfirmPage,
  type StaffNotice,
} from './staff-accounts-view.js';

/** The Add form (checked further by the operation: `newStaffProblems`). */
export const createStaffForm = z.object({
  csrf: z.string(),
  email: z.string().max(1000),
  name: z.string().max(1000),
  password: z.string().max(4096).optional(),
});

/** The forms that act on one account. */
export const accountActionForm = z.object({ csrf: z.string(), account_id: z.string().min(1).max(200) });

type ActionStep = AccountStep<{ form: z.infer<typeof accountActionForm> }>;

/** What each change says once done. */
const DONE_WORDS: Record<AccountChange, (email: string) => string> = {
  disable: (e) => `${e} is disabled: they cannot sign in, and their sessions and apps’ access ended.`,
  enable: (e) => `${e} can sign in again. The apps they used will ask them to allow access again.`,
  remove: (e) => `${e} is removed: their sessions and apps’ access ended.`,
  promote: (e) => `${e} is now an admin of the school.`,
  demote: (e) => `${e} is now staff.`,
};

/** The password sign-in switch of one account: `off` or `on`. */
export const passwordSwitchForm = accountActionForm.extend({ password_sign_in: z.enum(['off', 'on']) });

/** The page, its confirmation page and its actions. */
export function staffAccountsSteps(deps: AccountAdminDeps & RoleOpsDeps & { passkeys: Passkeys }): {
  show: AccountStep;
  confirm: AccountStep;
  create: AccountStep<{ form: z.infer<typeof createStaffForm> }>;
  unlock: ActionStep;
  reset: ActionStep;
  change: (change: AccountChange) => ActionStep;
  switchPassword: AccountStep<{ form: z.infer<typeof passwordSwitchForm> }>;
  removePasskeys: ActionStep;
} {
  const answer = async (ctx: AccountContext, status: number, notice?: StaffNotice) => {
    const listed = await listAccounts(deps);
    const factors = await Promise.all(listed.map((a) => accountFactors(deps, a._id)));
    const accounts = listed.map((a, i) => ({ ...a, factors: factors[i]! }));
    sendPage(
      ctx,
      status,
      staffAccountsPage({ account: ctx.state.account, csrf: ctx.state.csrf, accounts, notice }),
    );
  };
  const actorOf = (ctx: AccountContext) => ({
    actor: ctx.state.account._id,
    requestId: ctx.state.requestId,
    ip: ctx.ip,
  });
  const noSuchAccount = { error: 'There is no such account any more.' };
  const notices = new OneTimeNotices(deps.redis, deps.prefix);
  /** A change made: back to the page (303), which shows `notice` once (one-time-notice.ts). */
  const done = async (ctx: AccountContext, notice: StaffNotice) => {
    ctx.status = 303;
    ctx.redirect(await withNotice(notices, ctx.state.sessionUid, accountPath('staff'), notice));
  };

  return {
    show: async function showStaffAccounts(ctx) {
      await answer(ctx, 200, await notices.take<StaffNotice>(ctx.state.sessionUid, ctx.query.notice));
    },
    confirm: async function confirmStaffAction(ctx) {
      const action = CONFIRMED_ACTIONS.find((a) => a === ctx.query.action);
      const accountId = typeof ctx.query.account_id === 'string' ? ctx.query.account_id : '';
      const target = action && accountId ? await deps.accounts.profile(accountId) : undefined;
      if (!action || !target) throw new NotFoundError('no such account or action');
      const factors: AccountFactors | undefined =
        action === 'remove-passkeys' ? await accountFactors(deps, target._id) : undefined;
      const page = staffConfirmPage({ ...ctx.state, target, action: action, factors });
      sendPage(ctx, 200, page);
    },
    create: async function createStaffAccount(ctx) {
      const { email, name, password } = ctx.state.form;
      const typed = { email, name };
      try {
        const { account, generatedPassword } = await createStaff(
          deps,
          { email, name, password },
          actorOf(ctx),
        );
        const created = `Staff account created for ${account.email}. They can sign in now.`;
        const shown = generatedPassword ? { email: account.email, value: generatedPassword } : undefined;
        return await done(ctx, { done: created, password: shown });
      } catch (err) {
        if (err instanceof StaffRefused) return answer(ctx, 400, { errors: err.problems, typed });
        if (err instanceof AccountExists)
          return answer(ctx, 400, { errors: [`There is already an account for ${err.email}.`], typed });
        throw err;
      }
    },
    unlock: async function unlockStaffAccount(ctx) {
      const held = await unlockAccount(deps, ctx.state.form.account_id, actorOf(ctx));
      if (!held) return answer(ctx, 404, noSuchAccount);
      return done(ctx, {
        done: `Unlocked (it was: ${lockText(held).toLowerCase()}). They can sign in now.`,
      });
    },
    switchPassword: async function switchPasswordSignInStep(ctx) {
      const { account, form } = ctx.state;
      if (form.account_id === account._id)
        return answer(ctx, 400, { error: 'Another admin switches your own password sign-in.' });
      const target = await deps.accounts.profile(form.account_id);
      const off = form.password_sign_in === 'off';
      const problem =
        target && off
          ? lockOutProblem(await waysIn(deps.passkeys, deps.accounts, target._id), 'password-off')
          : undefined;
      if (problem) return answer(ctx, 409, { error: `${target!.email}: ${problem}` });
      if (!target || !(await switchPasswordSignIn(deps, target._id, off, actorOf(ctx))))
        return answer(ctx, 404, noSuchAccount);
      return done(ctx, {
        done: off
          ? `Password sign-in is off for ${target.email}: they sign in with a passkey or a recovery code.`
          : `Password sign-in is on again for ${target.email}.`,
      });
    },
    removePasskeys: async function removeStaffPasskeys(ctx) {
      const { account, form } = ctx.state;
      if (form.account_id === account._id)
        return answer(ctx, 400, { error: 'Remove your own passkeys on Your account.' });
      const target = await deps.accounts.profile(form.account_id);
      if (!target) return answer(ctx, 404, noSuchAccount);
      try {
        const removed = (await removeFactors(deps, target._id, actorOf(ctx)))!;
        const passkeys = plural(removed.passkeysRemoved.length, 'passkey');
        const codes = plural(removed.recoveryCodesRemoved, 'recovery code');
        return await done(ctx, {
          done: `${target.email} has no passkey and no recovery code any more (${passkeys} and ${codes} removed); their sessions ended.`,
        });
      } catch (err) {
        if (err instanceof FactorRemovalRefused)
          return answer(ctx, 409, { error: `${target.email}: ${err.message}` });
        throw err;
      }
    },
    reset: async function resetStaffPassword(ctx) {
      const { account, form } = ctx.state;
      if (form.account_id === account._id)
        return answer(ctx, 400, { error: 'Change your own password on Your account.' });
      const target = await deps.accounts.profile(form.account_id);
      const reset = target && (await resetPassword(deps, target._id, actorOf(ctx)));
      if (!target || !reset) return answer(ctx, 404, noSuchAccount);
      const ended = plural(reset.sessionsEnded, 'session');
      return done(ctx, {
        done: `The password of ${target.email} is reset and ${ended} of theirs ended.`,
        password: { email: target.email, value: reset.password },
      });
    },
    change: (change) =>
      async function changeStaffAccount(ctx) {
        try {
          const changed = await changeStanding(deps, ctx.state.form.account_id, change, actorOf(ctx));
          if (!changed) return await answer(ctx, 404, noSuchAccount);
          const narrowed = changed.narrowed?.grants
            ? ` The apps they allowed lost what staff may not allow (${plural(changed.narrowed.grants, 'grant')} narrowed).`
            : '';
          return await done(ctx, { done: DONE_WORDS[change](changed.account.email) + narrowed });
        } catch (err) {
          if (err instanceof AccountChangeRefused) return answer(ctx, 409, { error: err.message });
          throw err;
        }
      },
  };
}
