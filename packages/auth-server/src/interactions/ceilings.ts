/**
 * What the signer may grant an app by themself, shared by the consent page (consent.ts) and the
 * device pairing page (device-pairing/): their role's ceiling (accounts/roles.ts) and the scopes an
 * admin approved for them and that app (accounts/approval-requests.ts). What an app asks beyond that is
 * not offered: it is listed apart, with Ask an admin, which records a request ({@link askAdmin}) and
 * ends the app's request with `access_denied`, saying approval was requested.
 *
 * The pages offer only what may be granted, and the steps that write a grant take only that, whatever
 * the form posts.
 */
import type { AccountStore } from '../accounts/account-store.js';
import type { ApprovalRequest, ApprovalStore } from '../accounts/approval-requests.js';
import { withinCeiling, type RoleStore } from '../accounts/roles.js';
import type { AuditLog } from '../audit/audit-log.js';
import { verifiedHost } from '../clients/client-kind.js';
import type { AppIdentity } from '../pages/page-parts.js';

/** What the ceiling checks read. */
export interface CeilingDeps {
  accounts: AccountStore;
  roles: RoleStore;
  approvals: ApprovalStore;
}

/** Whether the signer may grant a scope (to the app in question). */
export type MayGrant = (scope: string) => boolean;

/** What `accountId` may grant `clientId` now: their role's ceiling and what an admin approved. */
export async function mayGrant(deps: CeilingDeps, accountId: string, clientId: string): Promise<MayGrant> {
  const account = await deps.accounts.profile(accountId);
  const [ceiling, approved] = await Promise.all([
    account ? deps.roles.ceilingOf(account.role) : Promise.resolve([]),
    deps.approvals.adminApprovedScopes(accountId, clientId),
  ]);
  const byAdmin = new Set(approved.map((a) => a.scope));
  return (scope) => withinCeiling(ceiling, scope) || byAdmin.has(scope);
}

/** `scopes` split into what the signer may grant (`offered`) and what needs an admin (`beyond`). */
export function splitByCeiling(
  scopes: readonly string[],
  may: MayGrant,
): { offered: string[]; beyond: string[] } {
  return { offered: scopes.filter(may), beyond: scopes.filter((s) => !may(s)) };
}

/** The `error_description` the app gets after Ask an admin. */
export const APPROVAL_REQUESTED =
  'The user asked a school admin to approve this access; try again once it is approved.';

/** Records Ask an admin for `scopes` (those beyond the ceiling), audited as `approval_requested`. */
export async function askAdmin(
  deps: CeilingDeps & { audit: AuditLog },
  asked: {
    accountId: string;
    client: AppIdentity;
    scopes: readonly string[];
    duration: string;
    requestId?: string;
    ip?: string;
  },
): Promise<ApprovalRequest | undefined> {
  const account = await deps.accounts.profile(asked.accountId);
  if (!account || !asked.scopes.length) return undefined;
  const domain = asked.client.kind === 'metadata-document' ? verifiedHost(asked.client.clientId) : undefined;
  const request = await deps.approvals.request({
    accountId: account._id,
    accountEmail: account.email,
    clientId: asked.client.clientId,
    ...(asked.client.name ? { clientName: asked.client.name } : {}),
    clientKind: asked.client.kind,
    ...(domain ? { clientDomain: domain } : {}),
    scopes: [...asked.scopes],
    duration: asked.duration,
  });
  void deps.audit.record('approval_requested', {
    requestId: asked.requestId,
    ip: asked.ip,
    accountId: account._id,
    clientId: asked.client.clientId,
    details: { request: request._id, scope: asked.scopes.join(' '), duration: asked.duration },
  });
  return request;
}
