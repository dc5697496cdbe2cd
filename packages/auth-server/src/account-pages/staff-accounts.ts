/**
 * Staff accounts, for the school's admins (require-admin.ts): list every account, add a staff
 * account, unlock one, reset a password, switch an account's password sign-in off or on (it then
 * signs in with a passkey or a recovery code only). The operations are accounts/account-admin.ts, shared with
 * `school-auth accounts …`, each audited with the acting admin's id. An admin resets their own
 * password on Your account instead (knowing the current one), never here.
 */
import { z } from 'zod';
import {
  createStaff,
  listAccounts,
  newStaffSchema,
  PasswordRefused,
  resetPassword,
  switchPasswordSignIn,
  unlockAccount,
  type AccountAdminDeps,
} from '../accounts/account-admin.js';
import { AccountExists, NameRefused } from '../accounts/account-store.js';
import { sendPage } from '../pages/html.js';
import type { AccountContext, AccountStep } from './signed-in.js';
import { lockText, staffAccountsPage, type StaffNotice } from './staff-accounts-view.js';

/** The Add form (checked further by the operation: `newStaffSchema`). */
export const createStaffForm = z.object({
  csrf: z.string(),
  email: z.string().max(1000),
  name: z.string().max(1000),
  password: z.string().max(4096).optional(),
});

/** The Unlock and Reset password forms. */
export const accountActionForm = z.object({ csrf: z.string(), account_id: z.string().min(1).max(200) });

type ActionStep = AccountStep<{ form: z.infer<typeof accountActionForm> }>;

/** The password sign-in switch of one account: `off` or `on`. */
export const passwordSwitchForm = accountActionForm.extend({ password_sign_in: z.enum(['off', 'on']) });

/** The page and its three actions. */
export function staffAccountsSteps(deps: AccountAdminDeps): {
  show: AccountStep;
  create: AccountStep<{ form: z.infer<typeof createStaffForm> }>;
  unlock: ActionStep;
  reset: ActionStep;
  switchPassword: AccountStep<{ form: z.infer<typeof passwordSwitchForm> }>;
} {
  const answer = async (ctx: AccountContext, status: number, notice?: StaffNotice) => {
    const accounts = await listAccounts(deps);
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

  return {
    show: async function showStaffAccounts(ctx) {
      await answer(ctx, 200);
    },
    create: async function createStaffAccount(ctx) {
      const checked = newStaffSchema.safeParse(ctx.state.form);
      if (!checked.success) return answer(ctx, 400, { error: 'Give a valid email address and a name.' });
      try {
        const { account, generatedPassword } = await createStaff(deps, checked.data, actorOf(ctx));
        const done = `Staff account created for ${account.email}. They can sign in now.`;
        const password = generatedPassword ? { email: account.email, value: generatedPassword } : undefined;
        return await answer(ctx, 200, { done, password });
      } catch (err) {
        if (err instanceof PasswordRefused || err instanceof NameRefused)
          return answer(ctx, 400, { error: err.message });
        if (err instanceof AccountExists)
          return answer(ctx, 400, { error: `There is already an account for ${err.email}.` });
        throw err;
      }
    },
    unlock: async function unlockStaffAccount(ctx) {
      const held = await unlockAccount(deps, ctx.state.form.account_id, actorOf(ctx));
      if (!held) return answer(ctx, 404, noSuchAccount);
      return answer(ctx, 200, {
        done: `Unlocked (it was: ${lockText(held).toLowerCase()}). They can sign in now.`,
      });
    },
    switchPassword: async function switchPasswordSignInStep(ctx) {
      const { account, form } = ctx.state;
      if (form.account_id === account._id)
        return answer(ctx, 400, { error: 'Another admin switches your own password sign-in.' });
      const target = await deps.accounts.profile(form.account_id);
      const off = form.password_sign_in === 'off';
      if (!target || !(await switchPasswordSignIn(deps, target._id, off, actorOf(ctx))))
        return answer(ctx, 404, noSuchAccount);
      return answer(ctx, 200, {
        done: off
          ? `Password sign-in is off for ${target.email}: they sign in with a passkey or a recovery code.`
          : `Password sign-in is on again for ${target.email}.`,
      });
    },
    reset: async function resetStaffPassword(ctx) {
      const { account, form } = ctx.state;
      if (form.account_id === account._id)
        return answer(ctx, 400, { error: 'Change your own password on Your account.' });
      const target = await deps.accounts.profile(form.account_id);
      const reset = target && (await resetPassword(deps, target._id, actorOf(ctx)));
      if (!target || !reset) return answer(ctx, 404, noSuchAccount);
      const ended = reset.sessionsEnded === 1 ? 'one session' : `${reset.sessionsEnded} sessions`;
      return answer(ctx, 200, {
        done: `The password of ${target.email} is reset and ${ended} of theirs ended.`,
        password: { email: target.email, value: reset.password },
      });
    },
  };
}
