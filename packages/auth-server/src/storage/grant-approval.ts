/**
 * Who approved a grant, as the Access register says it (account-pages/access-register.ts): `self`,
 * the account that holds it, on the consent page; the name of an admin when an admin approved it for
 * that account. Every grant is approved by its holder today; this is the one place that reads the
 * grant to say so.
 */
import type { HeldGrant } from './account-grants.js';

/** Who approved it: `self`, or the admin who did. */
export type Approver = 'self' | (string & {});

/** Who approved `grant`. */
export function approvedBy(grant: HeldGrant): Approver {
  return grant.approvedBy ?? 'self';
}
