/**
 * `school-auth apps`: the Connected apps page (account-pages/connected-apps.ts) for operators and
 * scripts. An account is named by email (or id); the same listing and the same Revoke as the page,
 * audited as the operator's. Revoking an app the account holds no grant of changes nothing, so it
 * is refused (exit 1) and nothing is audited.
 *
 * And the admins' App reviews page (account-pages/app-reviews.ts): `apps allow|block|unreview` an app
 * by client id, or with `--domain` every metadata-document app of a domain, through the same
 * operation (storage/app-review-actions.ts, audited as the operator's); `apps reviews` lists the
 * reviews and the requests waiting for one.
 */
import type { Command } from 'commander';
import type { AuthRuntime } from '../bootstrap.js';
import { connectedApps } from '../account-pages/connected-apps.js';
import type { ConnectedApp } from '../account-pages/views.js';
import { endAccountAccess } from '../storage/account-grants.js';
import { reviewApp, ReviewRefused, type ReviewAsked } from '../storage/app-review-actions.js';
import { listReviewRequests } from '../storage/app-review-requests.js';
import { listReviews } from '../storage/app-reviews.js';
import { OperatorError } from './operator-error.js';
import { isoTime, print } from './output.js';
import { withRuntime } from './runtime.js';

/** An app as `apps list` prints it, in the commands' style (docs/operators.md): snake_case, ISO times. */
function appJson(app: ConnectedApp): Record<string, unknown> {
  return {
    client_id: app.clientId,
    client_name: app.name,
    kind: app.kind,
    redirect_uris: app.redirectUris,
    scopes: app.scopes,
    scope_uses: Object.entries(app.scopeUses).map(([scope, at]) => ({ scope, last_used_at: isoTime(at) })),
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

/** The target a review command names: a client id, or `--domain`; exactly one. */
function reviewTarget(clientId: string | undefined, domain: string | undefined): Omit<ReviewAsked, 'review'> {
  if (clientId !== undefined && domain !== undefined)
    throw new OperatorError('Name a client id or --domain, not both.');
  if (domain !== undefined) return { target: 'domain', value: domain };
  if (clientId !== undefined) return { target: 'client', value: clientId };
  throw new OperatorError('Name the app’s client id, or --domain <domain>.');
}

/** The action of `apps allow|block|unreview`. */
const reviewAction =
  (review: ReviewAsked['review']) => (clientId: string | undefined, options: { domain?: string }) =>
    withRuntime(async (runtime, config) => {
      const asked = { ...reviewTarget(clientId, options.domain), review };
      const deps = { redis: runtime.redis, prefix: config.REDIS_KEY_PREFIX, audit: runtime.audit };
      try {
        const done = await reviewApp(deps, asked, { by: 'operator' });
        if (!done.changed) throw new OperatorError(`${done.value} had no review: nothing to remove.`);
        print({
          target: done.target,
          value: done.value,
          review: done.review,
          grants_ended: done.grants,
          tokens_ended: done.tokens,
        });
      } catch (err) {
        if (err instanceof ReviewRefused) throw new OperatorError(err.message);
        throw err;
      }
    });

/** Adds `apps` and its subcommands to the program. */
export function registerAppsCommands(program: Command): void {
  const apps = program
    .command('apps')
    .description(
      'the apps an account allowed (Connected apps), and the apps the school allows or blocks (App reviews)',
    );

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
        print({
          account_id: accountId,
          client_id: clientId,
          revoked: true,
          grants_ended: ended.grants,
          tokens_ended: ended.tokens,
        });
      }),
    );

  const reviewCommand = (name: string, description: string, review: ReviewAsked['review']) =>
    apps
      .command(name)
      .description(description)
      .argument('[client_id]', 'the app’s client id (apps list or clients list shows it)')
      .option('--domain <domain>', 'every metadata-document app of this domain and its subdomains instead')
      .action(reviewAction(review));

  reviewCommand('allow', 'mark an app (or a domain’s apps) allowed: staff may let it in', 'allowed');
  reviewCommand(
    'block',
    'block an app (or a domain’s apps): its access ends for every account at once and it cannot connect',
    'blocked',
  );
  reviewCommand('unreview', 'remove an app’s (or a domain’s) review: unreviewed again', 'unreviewed').alias(
    'unblock',
  );

  apps
    .command('reviews')
    .description('the apps and domains the school allowed or blocked, and the requests waiting for a review')
    .action(() =>
      withRuntime(async (runtime, config) => {
        const [reviews, requests] = await Promise.all([
          listReviews(runtime.redis, config.REDIS_KEY_PREFIX),
          listReviewRequests(runtime.redis, config.REDIS_KEY_PREFIX),
        ]);
        print({
          unreviewed_apps: config.APP_REVIEW_UNREVIEWED,
          reviews: reviews.map((r) => ({
            target: r.target,
            value: r.value,
            review: r.review,
            ...(r.name ? { name: r.name } : {}),
            by: r.by,
            reviewed_at: isoTime(r.at),
          })),
          requests: requests.map((r) => ({
            client_id: r.clientId,
            ...(r.name ? { name: r.name } : {}),
            kind: r.kind,
            ...(r.domain ? { domain: r.domain } : {}),
            asked_by: r.askers.map((a) => ({ email: a.email, asked_at: isoTime(a.at) })),
            asked: r.asked,
            first_asked_at: isoTime(r.at),
          })),
        });
      }),
    );
}
