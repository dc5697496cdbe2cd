/**
 * What an admin (Staff accounts) or an operator (`school-auth accounts …`) can do to an account's
 * standing: disable it, enable it again, remove it, make it an admin or staff again.
 *
 * Two rules hold for every one of them:
 * - the school always keeps an enabled admin: disabling, removing or demoting the last one is
 *   refused. The check and the change run under one Redis lock (SET NX, released by its holder
 *   only), so two admins acting on each other at once cannot both pass the check;
 * - an admin never disables, removes or demotes themself (another admin does it).
 *
 * A disabled or removed account's login sessions end at once and so does every grant it holds, with
 * all of their tokens (docs/decisions.md, "Grants end with the person who approved them"); the
 * resource API drops those tokens at once through the revocation feed. Enabling an account gives
 * back sign-in only: the apps are approved again. A removed account's passkeys and recovery codes go
 * with it. Every change is audited with its actor.
 */
import { randomUUID } from 'node:crypto';
import { endAllAccountAccess } from '../storage/account-grants.js';
import { endAccountSessions } from '../storage/account-sessions.js';
import { accountRolesLockKey } from '../storage/redis-keys.js';
import type { AccountAdminDeps, Actor } from './account-admin.js';
import type { AccountProfile } from './account-store.js';

/** What can be done to an account's standing. */
export const ACCOUNT_CHANGES = ['disable', 'enable', 'remove', 'promote', 'demote'] as const;

/** One of {@link ACCOUNT_CHANGES}. */
export type AccountChange = (typeof ACCOUNT_CHANGES)[number];

/** A change refused by a rule, with the rule in words. */
export class AccountChangeRefused extends Error {}

/** What a change did. */
export interface AccountChanged {
  account: AccountProfile;
  /** Login sessions ended (disable, remove). */
  sessionsEnded?: number;
  /** Grants and tokens ended (disable, remove). */
  grantsEnded?: number;
  tokensEnded?: number;
  /** Passkeys removed with the account, and its recovery codes with them (remove). */
  passkeysRemoved?: number;
}

const LOCK_MS = 10_000;
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

async function underLock<T>(deps: AccountAdminDeps, work: () => Promise<T>): Promise<T> {
  const key = accountRolesLockKey(deps.prefix);
  const holder = randomUUID();
  for (let waited = 0; (await deps.redis.set(key, holder, 'PX', LOCK_MS, 'NX')) !== 'OK'; waited += 50) {
    if (waited >= LOCK_MS)
      throw new AccountChangeRefused('another change of accounts is under way: try again');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  try {
    return await work();
  } finally {
    await deps.redis.eval(RELEASE_SCRIPT, 1, key, holder);
  }
}

const SELF_WORDS: Partial<Record<AccountChange, string>> = {
  disable: 'You cannot disable your own account: another admin can.',
  remove: 'You cannot remove your own account: another admin can.',
  demote: 'You cannot make yourself staff: another admin can.',
};

/** Why `change` may not be done to `target` by `by`, or undefined. */
async function problem(
  deps: AccountAdminDeps,
  target: AccountProfile,
  change: AccountChange,
  by: Actor,
): Promise<string | undefined> {
  if (by.actor === target._id && SELF_WORDS[change]) return SELF_WORDS[change];
  if (change === 'promote' && target.role === 'admin') return `${target.email} is an admin already.`;
  if (change === 'demote' && target.role !== 'admin') return `${target.email} is not an admin.`;
  if (change === 'disable' && target.disabled) return `${target.email} is disabled already.`;
  if (change === 'enable' && !target.disabled) return `${target.email} is not disabled.`;
  const losesAdmin = change === 'disable' || change === 'remove' || change === 'demote';
  if (losesAdmin && target.role === 'admin' && !target.disabled) {
    if ((await deps.accounts.otherEnabledAdmins(target._id)) === 0)
      return `${target.email} is the school’s last enabled admin: make another account an admin first.`;
  }
  return undefined;
}

async function endEverything(deps: AccountAdminDeps, accountId: string) {
  const sessionsEnded = await endAccountSessions(deps.redis, deps.prefix, accountId);
  const ended = await endAllAccountAccess(deps.redis, deps.prefix, accountId);
  return { sessionsEnded, grantsEnded: ended.grants, tokensEnded: ended.tokens };
}

/**
 * Does `change` to the account `accountId`; undefined when there is no such account. Throws
 * {@link AccountChangeRefused} when a rule forbids it.
 */
export async function changeAccount(
  deps: AccountAdminDeps,
  accountId: string,
  change: AccountChange,
  by: Actor,
): Promise<AccountChanged | undefined> {
  const done = await underLock(deps, async () => {
    const target = await deps.accounts.profile(accountId);
    if (!target) return undefined;
    const refused = await problem(deps, target, change, by);
    if (refused) throw new AccountChangeRefused(refused);
    if (change === 'remove') await deps.accounts.remove(accountId);
    else if (change === 'disable' || change === 'enable')
      await deps.accounts.setDisabled(accountId, change === 'disable');
    else await deps.accounts.setRole(accountId, change === 'promote' ? 'admin' : 'staff');
    return target;
  });
  if (!done) return undefined;
  // After the change, so a sign-in racing it is refused by the disabled flag or finds no account.
  const ended: Omit<AccountChanged, 'account'> =
    change === 'disable' || change === 'remove' ? await endEverything(deps, accountId) : {};
  if (change === 'remove') ended.passkeysRemoved = await deps.passkeys.forget(accountId);
  const account: AccountProfile =
    change === 'remove' ? done : { ...done, ...(await deps.accounts.profile(accountId)) };
  const type = (
    {
      disable: 'account_disabled',
      enable: 'account_enabled',
      remove: 'account_removed',
      promote: 'role_changed',
      demote: 'role_changed',
    } as const
  )[change];
  const role =
    change === 'promote' || change === 'demote'
      ? { role: change === 'promote' ? 'admin' : 'staff', before: done.role }
      : {};
  void deps.audit.record(type, {
    requestId: by.requestId,
    ip: by.ip,
    accountId,
    details: { actor: by.actor, email: done.email, ...role, ...ended },
  });
  return { account, ...ended };
}
