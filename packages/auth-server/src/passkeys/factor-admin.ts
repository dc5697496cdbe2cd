/**
 * What the school's admins (Staff accounts) and operators (`school-auth accounts passkeys …`) see of
 * and do to another account's passkeys and recovery codes: list them, and remove one passkey or every
 * passkey and code at once (a lost device, or a passkey its owner did not add). Removing ends every
 * login session of the account, those the passkey may have signed in among them, and is refused when
 * it would leave the account no way to sign in (ways-in.ts). Each removal is audited with who acted.
 */
import type { RedisClient } from '@school/shared';
import type { AuditLog } from '../audit/audit-log.js';
import { endAccountSessions } from '../storage/account-sessions.js';
import type { PasskeyView } from './passkey-store.js';
import type { Passkeys } from './passkeys.js';
import { lockOutProblem, waysIn } from './ways-in.js';

/** What the operations need. */
export interface FactorAdminDeps {
  passkeys: Passkeys;
  accounts: { passwordSwitchedOff(accountId: string): Promise<boolean> };
  audit: AuditLog;
  redis: RedisClient;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
}

/** Who acts: an admin's account id, or `operator`. */
export interface FactorActor {
  actor: string;
  requestId?: string;
  ip?: string;
}

/** A removal refused because the account could not sign in afterwards, with the reason in words. */
export class FactorRemovalRefused extends Error {}

/** An account's passkeys and how many unused recovery codes it has. */
export interface AccountFactors {
  passkeys: PasskeyView[];
  recoveryCodes: number;
}

/** The passkeys and unused recovery codes of `accountId`. */
export async function accountFactors(deps: FactorAdminDeps, accountId: string): Promise<AccountFactors> {
  const [passkeys, recoveryCodes] = await Promise.all([
    deps.passkeys.store.list(accountId),
    deps.passkeys.recoveryCodes.unused(accountId),
  ]);
  return { passkeys, recoveryCodes };
}

/** What a removal did. */
export interface FactorsRemoved {
  passkeysRemoved: string[];
  recoveryCodesRemoved: number;
  sessionsEnded: number;
}

/**
 * Removes the passkey `passkeyId` of `accountId`, or without one every passkey and recovery code of
 * it; throws {@link FactorRemovalRefused} when the account could not sign in afterwards. Undefined
 * when there is no such passkey.
 */
export async function removeFactors(
  deps: FactorAdminDeps,
  accountId: string,
  by: FactorActor,
  passkeyId?: string,
): Promise<FactorsRemoved | undefined> {
  const ways = await waysIn(deps.passkeys, deps.accounts, accountId);
  const problem = lockOutProblem(ways, passkeyId ? 'one-passkey' : 'every-passkey-and-code');
  if (problem) throw new FactorRemovalRefused(problem);
  const record = (type: 'passkey_removed' | 'recovery_codes_removed', details: Record<string, unknown>) =>
    void deps.audit.record(type, {
      requestId: by.requestId,
      ip: by.ip,
      accountId,
      details: { actor: by.actor, ...details },
    });
  let passkeysRemoved: string[];
  let recoveryCodesRemoved = 0;
  if (passkeyId) {
    const name = await deps.passkeys.store.remove(accountId, passkeyId);
    if (name === undefined) return undefined;
    passkeysRemoved = [name];
  } else {
    const listed = await deps.passkeys.store.list(accountId);
    const names = await Promise.all(listed.map((p) => deps.passkeys.store.remove(accountId, p.id)));
    passkeysRemoved = names.filter((n): n is string => n !== undefined);
    recoveryCodesRemoved = ways.recoveryCodes;
    await deps.passkeys.recoveryCodes.removeAll(accountId);
  }
  const sessionsEnded = await endAccountSessions(deps.redis, deps.prefix, accountId);
  for (const name of passkeysRemoved) record('passkey_removed', { name, sessionsEnded });
  if (!passkeyId) record('recovery_codes_removed', { count: recoveryCodesRemoved, sessionsEnded });
  return { passkeysRemoved, recoveryCodesRemoved, sessionsEnded };
}
