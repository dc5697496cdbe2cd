/**
 * The ways an account can still sign in (its passkeys, its unused recovery codes, its password unless
 * an admin switched it off), and the one rule every page and command that takes a way away follows:
 * no change may leave an account with none. Switching the password off, removing the last passkey or
 * removing every passkey and code is refused, with words saying what to do first.
 */

/** What signs an account in. */
export interface WaysIn {
  passkeys: number;
  recoveryCodes: number;
  passwordOff: boolean;
}

/** What {@link waysIn} reads. */
export interface WaysInSources {
  store: { count(accountId: string): Promise<number> };
  recoveryCodes: { unused(accountId: string): Promise<number> };
}

/** The ways `accountId` can sign in now. */
export async function waysIn(
  passkeys: WaysInSources,
  accounts: { passwordSwitchedOff(accountId: string): Promise<boolean> },
  accountId: string,
): Promise<WaysIn> {
  const [count, codes, passwordOff] = await Promise.all([
    passkeys.store.count(accountId),
    passkeys.recoveryCodes.unused(accountId),
    accounts.passwordSwitchedOff(accountId),
  ]);
  return { passkeys: count, recoveryCodes: codes, passwordOff };
}

/** A change that takes a way in away. */
export type WayTakenAway = 'password-off' | 'one-passkey' | 'every-passkey-and-code';

/** Why `change` would leave an account with `ways` no way to sign in; undefined when it would not. */
export function lockOutProblem(ways: WaysIn, change: WayTakenAway): string | undefined {
  switch (change) {
    case 'password-off':
      return ways.passkeys === 0 && ways.recoveryCodes === 0
        ? 'Password sign-in stays on: the account has no passkey and no recovery code, so it could not sign in at all. It adds a passkey first.'
        : undefined;
    case 'one-passkey':
      return ways.passwordOff && ways.passkeys <= 1 && ways.recoveryCodes === 0
        ? 'This is the last way to sign in: password sign-in is off and there is no recovery code. Add another passkey first, or ask an admin to switch password sign-in on.'
        : undefined;
    case 'every-passkey-and-code':
      return ways.passwordOff
        ? 'Password sign-in is off for this account: switch it on first, or the account could not sign in at all.'
        : undefined;
  }
}
