/**
 * `school-auth apps`: the Connected apps page (account-pages/connected-apps.ts) for operators and
 * scripts. An account is named by email (or id); the same listing and the same Revoke as the page,
 * audited as the operator's.
 *
 *   apps list <account email>                    the apps that account allowed, as the page lists them
 *   apps revoke <account email> <client_id>      end that app's access for that account (its tokens at once)
 */
import type { AuthRuntime } from '../bootstrap.js';
import { connectedApps } from '../account-pages/connected-apps.js';
import { endAccountAccess } from '../storage/account-grants.js';

/** Runs `apps <sub> …`; returns what to print, or a message for an unknown account. */
export async function appsCommand(
  runtime: AuthRuntime,
  prefix: string,
  [sub, account, clientId]: (string | undefined)[],
): Promise<{ print: unknown } | { error: string } | undefined> {
  if (!account || (sub !== 'list' && sub !== 'revoke') || (sub === 'revoke' && !clientId)) return undefined;
  const accountId = account.includes('@') ? await runtime.accounts.idOf(account) : account;
  if (!accountId || !(await runtime.accounts.profile(accountId))) return { error: `no account ${account}` };
  const deps = { provider: runtime.provider, redis: runtime.redis, prefix, audit: runtime.audit };
  if (sub === 'list') return { print: await connectedApps(deps, accountId) };
  const ended = await endAccountAccess(runtime.redis, prefix, accountId, clientId!);
  await runtime.audit.record('grant_revoked', {
    accountId,
    clientId,
    details: { by: 'operator', ...ended },
  });
  return { print: { revoked: clientId, account: accountId, ...ended } };
}
