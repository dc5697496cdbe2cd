/**
 * `school-auth accounts …`: what the Staff accounts page does, for operators and scripts, through the
 * same operations (accounts/account-admin.ts), audited with the actor `operator`:
 *
 *   accounts list                                 every account with its lock state
 *   accounts create-staff --email E --name N [--password-stdin]
 *                                                 a staff account; its password is read from stdin, or
 *                                                 generated and printed once
 *   accounts unlock <email>                       clear what the login throttle holds against it
 *   accounts reset-password <email>               a generated password, printed once; its sessions end
 */
import { readFileSync } from 'node:fs';
import {
  createStaff,
  listAccounts,
  resetPassword,
  unlockAccount,
  type AccountAdminDeps,
} from '../accounts/account-admin.js';

/** What the command was given. */
export interface AccountsArgs {
  sub?: string;
  arg?: string;
  email?: string;
  name?: string;
  passwordStdin?: boolean;
}

/** What the command prints (JSON), or the error to print and the exit code. */
export type AccountsOutcome = { print: unknown } | { error: string; code: number };

const operator = { actor: 'operator' };

/** Runs one `accounts` subcommand; undefined when the arguments name none (print the usage). */
export async function accountsCommand(
  deps: AccountAdminDeps,
  { sub, arg, email, name, passwordStdin }: AccountsArgs,
): Promise<AccountsOutcome | undefined> {
  if (sub === 'list') {
    const all = await listAccounts(deps);
    return {
      print: all.map((a) => ({
        account_id: a._id,
        email: a.email,
        name: a.name,
        role: a.role,
        created_at: a.createdAt,
        locked_from: a.lock.lockedFrom,
        failed_sign_ins: a.lock.failures,
        slowed_down: a.lock.delayed,
      })),
    };
  }
  if (sub === 'create-staff' && email && name) {
    const password = passwordStdin ? readFileSync(0, 'utf8').replace(/\r?\n$/, '') : undefined;
    const { account, generatedPassword } = await createStaff(deps, { email, name, password }, operator);
    return {
      print: {
        account_id: account._id,
        email: account.email,
        role: account.role,
        ...(generatedPassword ? { password: generatedPassword, password_generated: true } : {}),
      },
    };
  }
  if ((sub === 'unlock' || sub === 'reset-password') && arg) {
    const account = await deps.accounts.profileByEmail(arg);
    if (!account) return { error: `no account ${arg}`, code: 1 };
    if (sub === 'unlock') {
      const held = await unlockAccount(deps, account._id, operator);
      return { print: { account_id: account._id, email: account.email, unlocked: held } };
    }
    const reset = await resetPassword(deps, account._id, operator);
    if (!reset) return { error: `no account ${arg}`, code: 1 };
    return {
      print: {
        account_id: account._id,
        email: account.email,
        password: reset.password,
        sessions_ended: reset.sessionsEnded,
      },
    };
  }
  return undefined;
}
