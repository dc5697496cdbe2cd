/**
 * The step in front of every account page that only the school's admins may use (All clients,
 * Activity, staff accounts): an account whose `role` is not `admin` gets the 403 `admins_only` page.
 * Runs after `requireSignIn` (signed-in.ts), which loads the account.
 */
import { AdminsOnly } from '../pages/error-page.js';
import type { AccountStep } from './signed-in.js';

/** True when `account` may use the admins' pages. */
export function isAdmin(account: { role: string }): boolean {
  return account.role === 'admin';
}

/** Refuses ({@link AdminsOnly}) anyone signed in who is not one of the school's admins. */
export const requireAdmin: AccountStep = async function requireAdmin(ctx, next) {
  if (!isAdmin(ctx.state.account)) throw new AdminsOnly();
  await next();
};
