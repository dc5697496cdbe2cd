/**
 * `school-auth apps`: the Connected apps page (account-pages/connected-apps.ts) for operators and
 * scripts. An account is named by email (or id); the same listing and the same Revoke as the page,
 * audited as the operator's. Revoking an app the account holds no grant of changes nothing, so it
 * is refused (exit 1) and nothing is audited.
 */
import type { Command } from 'commander';
import type { AuthRuntime } from '../bootstrap.js';
import { connectedApps } from '../account-pages/connected-apps.js';
import type { ConnectedApp } from '../account-pages/views.js';
import { endAccountAccess } from '../storage/account-grants.js';
import { OperatorError } from './operator-error.js';
import { isoTime, print, withRuntime } from './runtime.js';

/** An app as `apps list` prints it, in the commands' style (docs/operators.md): snake_case, ISO times. */
function appJson(app: ConnectedApp): Record<string, unknown> {
  return {
    client_id: app.clientId,
    client_name: app.name,
    kind: app.kind,
    redirect_uris: app.redirectUris,
    scopes: app.scopes,
    scopes_last_used_at: Object.fromEntries(
      Object.entries(app.scopeUses).map(([scope, at]) => [scope, isoTime(at)]),
    ),
    first_allowed_at: isoTime(app.firstAuthorized),
    last_used_at: isoTime(app.lastUsed),
    access_ends_at: isoTime(app.expiresAt),
    ...(app.reuse ? { reused: { count: app.reuse.count, last_at: isoTime(app.reuse.last) } } : {}),
    ...(app.unavailable ? { unavailable: true } : {}),
  };
}

async function accountIdOf(runtime: AuthRuntime, account: string): Promise<string> {
  const accountId = account.includes('@') ? await runtime.accounts.idOf(account) : account;
  if (!accountId || !(await runtime.accounts.profile(accountId)))
    throw new OperatorError(`There is no account ${account}.`);
  return accountId;
}

/** Adds `apps` and its subcommands to the program. */
export function registerAppsCommands(program: Command): void {
  const apps = program.command('apps').description('the apps an account allowed, as its Connected apps page');

  apps
    .command('list')
    .description('the apps that account allowed, with their scopes and when they were last used')
    .argument('<account>', 'the account’s email (or id)')
    .action((account: string) =>
      withRuntime(async (runtime, config) => {
        const accountId = await accountIdOf(runtime, account);
        const deps = { ...runtime, prefix: config.REDIS_KEY_PREFIX };
        print((await connectedApps(deps, accountId)).map(appJson));
      }),
    );

  apps
    .command('revoke')
    .description('end that app’s access for that account: its access and refresh tokens end at once')
    .argument('<account>', 'the account’s email (or id)')
    .argument('<client_id>', 'the app’s client id (apps list shows it)')
    .action((account: string, clientId: string) =>
      withRuntime(async (runtime, config) => {
        const accountId = await accountIdOf(runtime, account);
        const ended = await endAccountAccess(runtime.redis, config.REDIS_KEY_PREFIX, accountId, clientId);
        if (!ended.grants)
          throw new OperatorError(`${account} has not allowed the app ${clientId}: nothing to revoke.`);
        await runtime.audit.record('grant_revoked', {
          accountId,
          clientId,
          details: { by: 'operator', ...ended },
        });
        print({ revoked: clientId, account_id: accountId, ...ended });
      }),
    );
}
