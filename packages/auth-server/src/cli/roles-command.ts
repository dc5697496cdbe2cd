/**
 * `school-auth roles …` and `school-auth approvals …`: the Roles and Approvals pages for operators
 * and scripts, through the same operations (account-pages/role-ceilings.ts), audited with the actor
 * `operator`. A ceiling is given as scope names (`roles set-ceiling teacher courses:read …`); lowering
 * one narrows its holders' live grants at once and says how many.
 */
import type { Command } from 'commander';
import { DecisionRefused, statusOf, type ApprovalRequest } from '../accounts/approval-requests.js';
import { RoleRefused } from '../accounts/roles.js';
import {
  createRole,
  decideApproval,
  removeRole,
  setAccountRole,
  setRoleCeiling,
  type RoleOpsDeps,
} from '../account-pages/role-ceilings.js';
import type { AuthRuntime } from '../bootstrap.js';
import type { AuthConfig } from '../config.js';
import { OperatorError } from './operator-error.js';
import { print } from './output.js';
import { wholeNumber, withRuntime } from './runtime.js';

const operator = { actor: 'operator' };

const opsDeps = (runtime: AuthRuntime, config: AuthConfig): RoleOpsDeps => ({
  ...runtime,
  prefix: config.REDIS_KEY_PREFIX,
});

/** Runs `work` with the operations' dependencies; a refusal of the store becomes the operator's. */
function withOps(work: (deps: RoleOpsDeps) => Promise<unknown>) {
  return withRuntime(async (runtime, config) => {
    try {
      print(await work(opsDeps(runtime, config)));
    } catch (err) {
      if (err instanceof RoleRefused || err instanceof DecisionRefused) throw new OperatorError(err.message);
      throw err;
    }
  });
}

/** Adds `accounts set-role` to the `accounts` command. */
export function registerSetRole(accounts: Command): void {
  accounts
    .command('set-role')
    .description(
      'give an account one of the roles (roles list); apps it allowed lose at once what the new role may not allow',
    )
    .argument('<email>', 'the account’s email')
    .argument('<role>', 'the role’s name, e.g. staff or teacher')
    .action((email: string, role: string) =>
      withOps(async (deps) => {
        const account = await deps.accounts.profileByEmail(email);
        const done = account && (await setAccountRole(deps, account._id, role, operator));
        if (!account || !done) throw new OperatorError(`There is no account with the email ${email}.`);
        return {
          account_id: account._id,
          email: done.email,
          role: done.role,
          role_before: done.before,
          grants_narrowed: done.grants,
          tokens_ended: done.tokens,
        };
      }),
    );
}

const shownRequest = (r: ApprovalRequest) => ({
  request_id: r._id,
  status: statusOf(r),
  account_id: r.accountId,
  email: r.accountEmail,
  client_id: r.clientId,
  client_name: r.clientName ?? null,
  client_kind: r.clientKind,
  client_domain: r.clientDomain ?? null,
  scopes: r.scopes,
  duration: r.duration,
  requested_at: r.requestedAt,
  expires_at: r.expiresAt,
  ...(r.decidedAt ? { decided_by: r.decidedBy, decided_at: r.decidedAt } : {}),
  ...(r.approvedScopes ? { approved_scopes: r.approvedScopes, approval_ends_at: r.approvedUntil } : {}),
  ...(r.note ? { note: r.note } : {}),
});

/** Adds `roles` and `approvals` with their subcommands to the program. */
export function registerRolesCommands(program: Command): void {
  const roles = program
    .command('roles')
    .description('the school’s roles and what each may allow apps, as the Roles page');

  roles
    .command('list')
    .description(
      'every role: name, label, the scopes it may allow ("*": every scope), how many accounts hold it',
    )
    .action(() =>
      withOps(async (deps) => {
        const [all, accounts] = await Promise.all([deps.roles.list(), deps.accounts.list()]);
        return all.map((r) => ({
          role: r.name,
          label: r.label,
          ceiling: r.ceiling,
          accounts: accounts.filter((a) => a.role === r.name).length,
        }));
      }),
    );

  roles
    .command('create')
    .description('add a role; it may allow only signing in until its ceiling is set')
    .argument('<role>', 'its name: lower-case letters, digits and "-", e.g. teacher')
    .requiredOption('--label <label>', 'the role as the pages say it, e.g. Teacher')
    .option('--scopes <scopes...>', 'the scopes it may allow (space-separated names)')
    .action((role: string, o: { label: string; scopes?: string[] }) =>
      withOps(async (deps) => {
        const created = await createRole(
          deps,
          { name: role, label: o.label, ceiling: o.scopes ?? [] },
          operator,
        );
        return { role: created.name, label: created.label, ceiling: created.ceiling };
      }),
    );

  roles
    .command('set-ceiling')
    .description(
      'set the scopes a role may allow apps; what it loses is taken back at once from its holders’ apps (their access tokens end)',
    )
    .argument('<role>', 'the role’s name')
    .argument('[scopes...]', 'every scope it may allow (none: signing in only)')
    .action((role: string, scopes: string[]) =>
      withOps(async (deps) => {
        const done = await setRoleCeiling(deps, role, scopes, operator);
        if (!done) throw new OperatorError(`There is no role ${role}.`);
        return {
          role: done.role.name,
          ceiling: done.role.ceiling,
          removed: done.removed,
          added: done.added,
          grants_narrowed: done.grants,
          tokens_ended: done.tokens,
        };
      }),
    );

  roles
    .command('delete')
    .description('remove a role no account holds (admin cannot be removed)')
    .argument('<role>', 'the role’s name')
    .action((role: string) =>
      withOps(async (deps) => {
        if (!(await removeRole(deps, role, operator))) throw new OperatorError(`There is no role ${role}.`);
        return { role, removed: true };
      }),
    );

  const approvals = program
    .command('approvals')
    .description('Ask an admin’s requests, as the Approvals page');

  approvals
    .command('list')
    .description('the requests waiting for a decision (with --all, the latest in any state)')
    .option('--all', 'also the decided and expired ones, newest first')
    .action((o: { all?: boolean }) =>
      withOps(async (deps) =>
        (o.all ? await deps.approvals.recent(100) : await deps.approvals.pending()).map(shownRequest),
      ),
    );

  approvals
    .command('approve')
    .description('let the person allow that app the scopes asked (or those named) for a number of days')
    .argument('<request_id>', 'the request (approvals list shows it)')
    .option('--scopes <scopes...>', 'only these of the scopes asked (default: all)')
    .option('--days <n>', 'how long the approval lasts, days (default 30)', wholeNumber(1, 365))
    .option('--note <text>', 'a note the person is shown')
    .action((id: string, o: { scopes?: string[]; days?: number; note?: string }) =>
      withOps(async (deps) => {
        const request = await deps.approvals.find(id);
        if (!request) throw new OperatorError(`There is no request ${id}.`);
        const approve = o.scopes ?? request.scopes;
        const note = o.note ? { note: o.note } : {};
        return shownRequest(
          await decideApproval(deps, id, { approve, days: o.days ?? 30, ...note }, operator),
        );
      }),
    );

  approvals
    .command('deny')
    .description('deny a request; the person is told on their next visit to the account pages')
    .argument('<request_id>', 'the request (approvals list shows it)')
    .option('--note <text>', 'a note the person is shown')
    .action((id: string, o: { note?: string }) =>
      withOps(async (deps) => {
        const note = o.note ? { note: o.note } : {};
        return shownRequest(await decideApproval(deps, id, { deny: true, ...note }, operator));
      }),
    );
}
