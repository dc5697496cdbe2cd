/**
 * `school-auth accounts …`: what the Staff accounts page does, for operators and scripts, through the
 * same operations (accounts/account-admin.ts, accounts/account-status.ts through
 * account-pages/role-ceilings.ts `changeStanding`, passkeys/factor-admin.ts), audited with the actor
 * `operator`. `demote` narrows the account's live grants to the staff ceiling as `set-role` does. An account is named by its email. Switching password sign-in off
 * and removing passkeys are refused when the account would have no way to sign in left
 * (passkeys/ways-in.ts).
 */
import { readFileSync } from 'node:fs';
import { Argument, type Command } from 'commander';
import {
  createStaff,
  listAccounts,
  resetPassword,
  switchPasswordSignIn,
  unlockAccount,
  type AccountAdminDeps,
} from '../accounts/account-admin.js';
import type { AccountChange } from '../accounts/account-status.js';
import { changeStanding, type RoleOpsDeps } from '../account-pages/role-ceilings.js';
import type { AuthRuntime } from '../bootstrap.js';
import type { AuthConfig } from '../config.js';
import { loginGuardFor } from '../accounts/login-guard.js';
import {
  accountFactors,
  FactorRemovalRefused,
  removeFactors,
  type FactorAdminDeps,
} from '../passkeys/factor-admin.js';
import { lockOutProblem, waysIn } from '../passkeys/ways-in.js';
import { OperatorError } from './operator-error.js';
import { print } from './output.js';
import { withRuntime, withStorage } from './runtime.js';
import { registerSetRole } from './roles-command.js';

const operator = { actor: 'operator' };

type CommandDeps = AccountAdminDeps & FactorAdminDeps;

const adminDeps = (runtime: AuthRuntime, config: AuthConfig): CommandDeps & RoleOpsDeps => ({
  ...runtime,
  loginGuard: loginGuardFor(runtime.redis, config),
  prefix: config.REDIS_KEY_PREFIX,
});

/** Runs `work` on the account with `email`; a clear refusal when there is none. */
function onAccount(
  email: string,
  work: (deps: CommandDeps & RoleOpsDeps, account: { _id: string; email: string }) => Promise<unknown>,
) {
  return withRuntime(async (runtime, config) => {
    const account = await runtime.accounts.profileByEmail(email);
    if (!account) throw new OperatorError(`There is no account with the email ${email}.`);
    print(await work(adminDeps(runtime, config), account));
  });
}

const CHANGES: { change: AccountChange; describe: string }[] = [
  {
    change: 'disable',
    describe: 'stop an account signing in; its sessions and every app’s access it approved end at once',
  },
  { change: 'enable', describe: 'let a disabled account sign in again (its apps are approved again)' },
  { change: 'remove', describe: 'delete an account; its sessions and every app’s access it approved end' },
  { change: 'promote', describe: 'make a staff account an admin of the school' },
  {
    change: 'demote',
    describe: 'make an admin staff again; apps it allowed lose at once what staff may not allow',
  },
];

/** Adds `accounts` and its subcommands to the program. */
export function registerAccountsCommands(program: Command): void {
  const accounts = program.command('accounts').description('staff accounts, as the Staff accounts page');

  accounts
    .command('list')
    .description(
      'every account: email, name, role, state, password sign-in, created, what the login throttle holds',
    )
    .action(() =>
      withStorage(async ({ accounts, redis }, config) => {
        const all = await listAccounts({ accounts, loginGuard: loginGuardFor(redis, config) });
        print(
          all.map((a) => ({
            account_id: a._id,
            email: a.email,
            name: a.name,
            role: a.role,
            disabled: a.disabled ?? false,
            password_sign_in: a.passwordOff ? 'off' : 'on',
            created_at: a.createdAt,
            locked_from: a.lock.lockedFrom,
            failed_sign_ins: a.lock.failures,
            slowed_down: a.lock.delayed,
          })),
        );
      }),
    );

  accounts
    .command('create-staff')
    .description('add a staff account; its password is generated and printed once unless given on stdin')
    .requiredOption('--email <email>', 'the person’s email, with which they sign in')
    .requiredOption('--name <name>', 'the person’s name, as the pages show it')
    .option('--password-stdin', 'read the password from standard input (never from the command line)')
    .action((o: { email: string; name: string; passwordStdin?: boolean }) =>
      withRuntime(async (runtime, config) => {
        const password = o.passwordStdin ? readFileSync(0, 'utf8').replace(/\r?\n$/, '') : undefined;
        const { account, generatedPassword } = await createStaff(
          adminDeps(runtime, config),
          { email: o.email, name: o.name, password },
          operator,
        );
        print({
          account_id: account._id,
          email: account.email,
          role: account.role,
          ...(generatedPassword ? { password: generatedPassword, password_generated: true } : {}),
        });
      }),
    );

  accounts
    .command('unlock')
    .description('clear what the login throttle holds against an account, so it can sign in at once')
    .argument('<email>', 'the account’s email')
    .action((email: string) =>
      onAccount(email, async (deps, account) => ({
        account_id: account._id,
        email: account.email,
        unlocked: await unlockAccount(deps, account._id, operator),
      })),
    );

  accounts
    .command('reset-password')
    .description('give an account a generated password, printed once; its sessions end, its apps keep access')
    .argument('<email>', 'the account’s email')
    .action((email: string) =>
      onAccount(email, async (deps, account) => {
        const reset = await resetPassword(deps, account._id, operator);
        if (!reset) throw new OperatorError(`There is no account with the email ${email}.`);
        return {
          account_id: account._id,
          email: account.email,
          password: reset.password,
          sessions_ended: reset.sessionsEnded,
        };
      }),
    );

  accounts
    .command('password-sign-in')
    .description('switch an account’s password sign-in off (passkey or recovery code only) or back on')
    .argument('<email>', 'the account’s email')
    .addArgument(new Argument('<on|off>', 'on or off').choices(['on', 'off']))
    .action((email: string, state: 'on' | 'off') =>
      onAccount(email, async (deps, account) => {
        const problem =
          state === 'off'
            ? lockOutProblem(await waysIn(deps.passkeys, deps.accounts, account._id), 'password-off')
            : undefined;
        if (problem) throw new OperatorError(`${email}: ${problem}`);
        if (!(await switchPasswordSignIn(deps, account._id, state === 'off', operator)))
          throw new OperatorError(`There is no account with the email ${email}.`);
        return { account_id: account._id, email: account.email, password_sign_in: state };
      }),
    );

  accounts
    .command('passkeys')
    .description(
      'list an account’s passkeys (name, id, added, last used, the factor shown before it was added) and unused recovery codes, or remove them (one with --passkey-id, else every passkey and code); removing ends its sessions',
    )
    .argument('<email>', 'the account’s email')
    .addArgument(new Argument('<list|remove>', 'list or remove').choices(['list', 'remove']))
    .option('--passkey-id <id>', 'remove only this passkey (its passkey_id from list)')
    .action((email: string, action: 'list' | 'remove', o: { passkeyId?: string }) =>
      onAccount(email, async (deps, account) => {
        if (action === 'list') {
          const factors = await accountFactors(deps, account._id);
          return {
            account_id: account._id,
            email: account.email,
            passkeys: factors.passkeys.map((p) => ({
              passkey_id: p.id,
              name: p.name,
              added_at: p.createdAt,
              last_used_at: p.lastUsedAt,
              added_after: p.proof ?? 'unrecorded',
            })),
            recovery_codes: factors.recoveryCodes,
          };
        }
        try {
          const removed = await removeFactors(deps, account._id, operator, o.passkeyId);
          if (!removed) throw new OperatorError(`${email} has no passkey with the id ${o.passkeyId}.`);
          return {
            account_id: account._id,
            email: account.email,
            passkeys_removed: removed.passkeysRemoved,
            recovery_codes_removed: removed.recoveryCodesRemoved,
            sessions_ended: removed.sessionsEnded,
          };
        } catch (err) {
          if (err instanceof FactorRemovalRefused) throw new OperatorError(`${email}: ${err.message}`);
          throw err;
        }
      }),
    );

  registerSetRole(accounts);

  for (const { change, describe } of CHANGES) {
    accounts
      .command(change)
      .description(describe)
      .argument('<email>', 'the account’s email')
      .action((email: string) =>
        onAccount(email, async (deps, account) => {
          const done = await changeStanding(deps, account._id, change, operator);
          if (!done) throw new OperatorError(`There is no account with the email ${email}.`);
          return {
            account_id: account._id,
            email: account.email,
            role: done.account.role,
            disabled: change === 'remove' ? undefined : (done.account.disabled ?? false),
            removed: change === 'remove' || undefined,
            sessions_ended: done.sessionsEnded,
            grants_ended: done.grantsEnded,
            grants_narrowed: done.narrowed?.grants,
            tokens_ended: done.tokensEnded ?? done.narrowed?.tokens,
            passkeys_removed: done.passkeysRemoved,
          };
        }),
      );
  }
}
