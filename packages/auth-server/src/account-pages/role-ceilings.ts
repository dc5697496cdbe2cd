/**
 * The operations on roles and approvals that the Roles and Approvals pages and `school-auth roles …`,
 * `accounts set-role` and `approvals …` share, each audited with who acted (an admin's id, or
 * `operator`).
 *
 * A ceiling lowered, or an account given a role that may grant less, narrows the live grants of the
 * accounts concerned at once, the way Drop unused scopes does (drop-unused-scopes.ts `narrowGrant`):
 * each grant loses the scopes its account may no longer grant that app (the ceiling, plus what an
 * admin approved for it), is saved narrower, and its outstanding access tokens end; its refresh token
 * stays, so the app's next refresh gets an access token with what is left.
 */
import type { AccountAdminDeps } from '../accounts/account-admin.js';
import { changeAccount, type AccountChange, type AccountChanged } from '../accounts/account-status.js';
import type { AccountStore } from '../accounts/account-store.js';
import type { ApprovalRequest, ApprovalStore } from '../accounts/approval-requests.js';
import { RoleRefused, type Role, type RoleStore } from '../accounts/roles.js';
import { mayGrant } from '../interactions/ceilings.js';
import { accountGrants } from '../storage/account-grants.js';
import type { ConnectedAppsDeps } from './connected-apps.js';
import { narrowGrant } from './drop-unused-scopes.js';

/** What the operations need. */
export interface RoleOpsDeps extends ConnectedAppsDeps {
  accounts: AccountStore;
  roles: RoleStore;
  approvals: ApprovalStore;
}

/** Who acts: an admin's account id or `operator`, and the request it came with. */
export interface Actor {
  actor: string;
  requestId?: string;
  ip?: string;
}

/** What narrowing did: the grants narrowed and the access tokens ended. */
export interface Narrowing {
  grants: number;
  tokens: number;
}

const by = (a: Actor) => ({ requestId: a.requestId, ip: a.ip });

/**
 * Narrows every live grant of `accountIds` to what each account may grant its app now, audited per
 * grant as `grant_narrowed` with the reason `ceiling`.
 */
export async function narrowToCeilings(
  deps: RoleOpsDeps,
  accountIds: readonly string[],
  actor: Actor,
): Promise<Narrowing> {
  const done: Narrowing = { grants: 0, tokens: 0 };
  for (const accountId of accountIds) {
    for (const held of await accountGrants(deps.redis, deps.prefix, accountId)) {
      const may = await mayGrant(deps, accountId, held.clientId);
      const dropped = held.scopes.filter((s) => !may(s));
      if (!dropped.length) continue;
      const tokens = await narrowGrant(deps, { ...held, accountId }, dropped);
      done.grants++;
      done.tokens += tokens;
      void deps.audit.record('grant_narrowed', {
        ...by(actor),
        accountId,
        clientId: held.clientId,
        details: { actor: actor.actor, reason: 'ceiling', dropped: dropped.join(' '), tokens },
      });
    }
  }
  return done;
}

/** The accounts holding `role`. */
async function holders(deps: RoleOpsDeps, role: string): Promise<string[]> {
  return (await deps.accounts.list()).filter((a) => a.role === role).map((a) => a._id);
}

/** Adds a role, audited as `role_created`. */
export async function createRole(deps: RoleOpsDeps, role: Role, actor: Actor): Promise<Role> {
  const created = await deps.roles.create(role.name, role.label, role.ceiling);
  void deps.audit.record('role_created', {
    ...by(actor),
    details: { actor: actor.actor, role: created.name, ceiling: created.ceiling.join(' ') },
  });
  return created;
}

/**
 * Sets `role`'s ceiling (audited as `role_ceiling_changed`), then narrows its holders' grants;
 * undefined when there is no such role.
 */
export async function setRoleCeiling(
  deps: RoleOpsDeps,
  role: string,
  ceiling: readonly string[],
  actor: Actor,
): Promise<({ role: Role; removed: string[]; added: string[] } & Narrowing) | undefined> {
  const changed = await deps.roles.setCeiling(role, ceiling);
  if (!changed) return undefined;
  const removed = changed.before.ceiling.filter((s) => !changed.after.ceiling.includes(s));
  const added = changed.after.ceiling.filter((s) => !changed.before.ceiling.includes(s));
  void deps.audit.record('role_ceiling_changed', {
    ...by(actor),
    details: {
      actor: actor.actor,
      role,
      ceiling: changed.after.ceiling.join(' '),
      removed: removed.join(' '),
      added: added.join(' '),
    },
  });
  const narrowed = removed.length
    ? await narrowToCeilings(deps, await holders(deps, role), actor)
    : { grants: 0, tokens: 0 };
  return { role: changed.after, removed, added, ...narrowed };
}

/** Removes `role` (refused while an account holds it, and for `admin`), audited as `role_removed`. */
export async function removeRole(deps: RoleOpsDeps, role: string, actor: Actor): Promise<boolean> {
  const removed = await deps.roles.remove(role, (await holders(deps, role)).length);
  if (removed)
    void deps.audit.record('role_removed', { ...by(actor), details: { actor: actor.actor, role } });
  return removed;
}

/**
 * Gives `accountId` the role `role`, which must exist (audited as `role_changed`), then narrows the
 * account's grants to its new ceiling; undefined when there is no such account.
 */
export async function setAccountRole(
  deps: RoleOpsDeps,
  accountId: string,
  role: string,
  actor: Actor,
): Promise<({ email: string; role: string; before: string } & Narrowing) | undefined> {
  const target = await deps.accounts.profile(accountId);
  if (!target) return undefined;
  if (!(await deps.roles.find(role))) throw new RoleRefused(`There is no role ${role}.`);
  if (target.role === 'admin' && role !== 'admin') {
    const admins = (await deps.accounts.list()).filter((a) => a.role === 'admin' && !a.disabled);
    if (admins.length <= 1 && !target.disabled)
      throw new RoleRefused(`${target.email} is the only admin: make another account admin first.`);
  }
  await deps.accounts.setRole(accountId, role);
  void deps.audit.record('role_changed', {
    ...by(actor),
    accountId,
    details: { actor: actor.actor, email: target.email, role, before: target.role },
  });
  const narrowed = await narrowToCeilings(deps, [accountId], actor);
  return { email: target.email, role, before: target.role, ...narrowed };
}

/**
 * Staff accounts' actions and `school-auth accounts disable|enable|remove|promote|demote`:
 * accounts/account-status.ts `changeAccount` (its rules: under one lock, never oneself, never the
 * last enabled admin). Make staff (`demote`) then narrows the account's grants to the staff ceiling
 * as {@link setAccountRole} does; the narrowing is undefined for every other change (Make admin may
 * only widen, Disable and Remove end every grant).
 */
export async function changeStanding(
  deps: RoleOpsDeps & AccountAdminDeps,
  accountId: string,
  change: AccountChange,
  actor: Actor,
): Promise<(AccountChanged & { narrowed?: Narrowing }) | undefined> {
  const changed = await changeAccount(deps, accountId, change, actor);
  if (!changed || change !== 'demote') return changed;
  return { ...changed, narrowed: await narrowToCeilings(deps, [accountId], actor) };
}

/**
 * Approves (`approve`: scopes, `days`) or denies the request `id`, with an optional note; audited as
 * `approval_granted` or `approval_denied`. Refusals are the store's `DecisionRefused`.
 */
export async function decideApproval(
  deps: RoleOpsDeps,
  id: string,
  decision: { note?: string } & ({ approve: string[]; days: number } | { deny: true }),
  actor: Actor,
): Promise<ApprovalRequest> {
  const decided = await deps.approvals.decide(id, { ...decision, by: actor.actor });
  const approved = decided.status === 'approved';
  void deps.audit.record(approved ? 'approval_granted' : 'approval_denied', {
    ...by(actor),
    accountId: decided.accountId,
    clientId: decided.clientId,
    details: {
      actor: actor.actor,
      request: decided._id,
      scope: (approved ? decided.approvedScopes! : decided.scopes).join(' '),
      ...(approved ? { until: decided.approvedUntil!.toISOString() } : {}),
      ...(decided.note ? { note: decided.note } : {}),
    },
  });
  return decided;
}
