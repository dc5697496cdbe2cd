/**
 * What can be done to accounts, once, for both the account pages (Your account, Staff accounts) and
 * `school-auth accounts …`: create a staff account, unlock one, reset or change a password, end an
 * account's login sessions. Every action is audited, naming who acted (`actor`: the admin's account
 * id, the account itself, or `operator` for the command) and the account acted on (`accountId`);
 * never a password.
 *
 * A password set here follows the one rule (password-rule.ts); a generated one is returned to be
 * shown once and is stored only as its hash. Ending sessions leaves the apps' grants and tokens alone
 * (storage/account-sessions.ts): Connected apps is where access ends.
 */
import { displayTextProblem, type RedisClient } from '@school/shared';
import { z } from 'zod';
import type { AuditLog } from '../audit/audit-log.js';
import type { AccountLockState, LoginGuard } from './login-guard.js';
import { endAccountSessions } from '../storage/account-sessions.js';
import type { AccountProfile, AccountStore } from './account-store.js';
import { generatePassword, passwordProblem } from './password-rule.js';

/** What the operations need. */
export interface AccountAdminDeps {
  accounts: AccountStore;
  audit: AuditLog;
  loginGuard: LoginGuard;
  redis: RedisClient;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  /** What else signs an account in (passkeys/passkeys.ts), forgotten when the account is removed. */
  passkeys: { forget(accountId: string): Promise<number> };
}

/** Who acts, as the audit log records it. */
export interface Actor {
  /** The acting account's id, or `operator` for `school-auth`. */
  actor: string;
  requestId?: string;
  ip?: string;
}

/** A password refused by the rule, with the rule's words. */
export class PasswordRefused extends Error {}

/** An account as Staff accounts lists it: who, and what the login guard holds against it. */
export interface ListedAccount extends AccountProfile {
  lock: AccountLockState;
}

/** A new staff account's details as a person gives them (the password may be left out: generated). */
export const newStaffSchema = z.object({
  email: z.string().trim().toLowerCase().email().max(254),
  name: z.string().trim().min(1).max(200),
  password: z.string().optional(),
});

/** A new staff account refused, with every problem of its details in words. */
export class StaffRefused extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join(' '));
  }
}

/** Every problem of a new staff account's details, in words, all at once (none: it can be made). */
export function newStaffProblems(input: { email: string; name: string; password?: string }): string[] {
  const problems: string[] = [];
  const email = input.email.trim();
  if (!email) problems.push('Give an email address.');
  else if (!newStaffSchema.shape.email.safeParse(email).success)
    problems.push(`${email} is not an email address.`);
  const name = input.name.trim();
  const nameProblem = name ? displayTextProblem(name) : undefined;
  if (!name) problems.push('Give a name.');
  else if (name.length > 200) problems.push('The name needs at most 200 characters.');
  else if (nameProblem) problems.push(`The name ${nameProblem}.`);
  const passwordWords = input.password ? passwordProblem(input.password) : undefined;
  if (passwordWords) problems.push(passwordWords);
  return problems;
}

/** Every account with its lock state, oldest first. */
export async function listAccounts({
  accounts,
  loginGuard,
}: Pick<AccountAdminDeps, 'accounts' | 'loginGuard'>): Promise<ListedAccount[]> {
  const all = await accounts.list();
  const locks = await Promise.all(all.map((a) => loginGuard.lockState(a.email)));
  return all.map((a, i) => ({ ...a, lock: locks[i]! }));
}

function audited(deps: AccountAdminDeps, by: Actor) {
  return (type: Parameters<AuditLog['record']>[0], accountId: string, details: Record<string, unknown>) =>
    void deps.audit.record(type, {
      requestId: by.requestId,
      ip: by.ip,
      accountId,
      details: { actor: by.actor, ...details },
    });
}

/**
 * Switches password sign-in of `accountId` off (`off`) or back on; the account then signs in with a
 * passkey or a recovery code only. False when there is no such account.
 */
export async function switchPasswordSignIn(
  deps: AccountAdminDeps,
  accountId: string,
  off: boolean,
  by: Actor,
): Promise<boolean> {
  if (!(await deps.accounts.switchPassword(accountId, off))) return false;
  audited(deps, by)('password_sign_in_switched', accountId, { password_sign_in: off ? 'off' : 'on' });
  return true;
}

/**
 * Creates a staff account; without a password, one is generated and returned (shown once). Throws
 * {@link StaffRefused} naming every problem of the details, or AccountExists (account-store.ts) when
 * the email has an account.
 */
export async function createStaff(
  deps: AccountAdminDeps,
  input: z.input<typeof newStaffSchema>,
  by: Actor,
): Promise<{ account: AccountProfile; generatedPassword?: string }> {
  const problems = newStaffProblems(input);
  if (problems.length) throw new StaffRefused(problems);
  const { email, name, password: given } = newStaffSchema.parse(input);
  const password = given || generatePassword();
  const account = await deps.accounts.create({ email, name, password, role: 'staff' });
  audited(deps, by)('account_created', account._id, { email, role: 'staff', passwordGenerated: !given });
  return { account, generatedPassword: given ? undefined : password };
}

/** Clears what the login guard holds against the account; undefined when there is no such account. */
export async function unlockAccount(
  deps: AccountAdminDeps,
  accountId: string,
  by: Actor,
): Promise<AccountLockState | undefined> {
  const account = await deps.accounts.profile(accountId);
  if (!account) return undefined;
  const held = await deps.loginGuard.unlock(account.email);
  audited(deps, by)('account_unlocked', accountId, { email: account.email, ...held });
  return held;
}

/**
 * Gives the account a generated password (returned, shown once) and ends all its login sessions;
 * undefined when there is no such account.
 */
export async function resetPassword(
  deps: AccountAdminDeps,
  accountId: string,
  by: Actor,
): Promise<{ password: string; sessionsEnded: number } | undefined> {
  const password = generatePassword();
  if (!(await deps.accounts.setPassword(accountId, password))) return undefined;
  const sessionsEnded = await endAccountSessions(deps.redis, deps.prefix, accountId);
  audited(deps, by)('password_reset', accountId, { sessionsEnded });
  return { password, sessionsEnded };
}

/**
 * Sets the password the account's owner chose (throws {@link PasswordRefused}) and ends every other
 * login session of the account (all but `keepSession`); returns how many ended.
 */
export async function changePassword(
  deps: AccountAdminDeps,
  accountId: string,
  password: string,
  keepSession: string,
  by: Actor,
): Promise<number> {
  const problem = passwordProblem(password);
  if (problem) throw new PasswordRefused(problem);
  await deps.accounts.setPassword(accountId, password);
  const sessionsEnded = await endAccountSessions(deps.redis, deps.prefix, accountId, keepSession);
  audited(deps, by)('password_changed', accountId, { sessionsEnded });
  return sessionsEnded;
}

/** Ends every login session of the account, the actor's own included; returns how many ended. */
export async function signOutEverywhere(
  deps: AccountAdminDeps,
  accountId: string,
  by: Actor,
): Promise<number> {
  const sessions = await endAccountSessions(deps.redis, deps.prefix, accountId);
  audited(deps, by)('sessions_ended', accountId, { sessions });
  return sessions;
}
