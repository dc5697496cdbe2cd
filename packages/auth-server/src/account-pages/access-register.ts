/**
 * The Access register: the school's record of who has access to what, one row per app an account has
 * allowed (the account's grants of one app together, exactly as its Connected apps page shows them),
 * for the admins' page (register-page.ts), its CSV download and `school-auth grants export`. Every
 * one of them reads {@link accessRegister}, which reads each account's Connected apps
 * (connected-apps.ts): the register cannot say anything about an account its own page does not.
 *
 * Accounts are walked one at a time, oldest first, and each account's rows are handed on before the
 * next is read, so the export streams and the page reads only the accounts it shows.
 */
import { API_SCOPE_NAMES, scopesByCategory, type CategoryGroup } from '@school/shared';
import type { AccountProfile, AccountStore } from '../accounts/account-store.js';
import type { ApprovalStore } from '../accounts/approval-requests.js';
import { verifiedHost, type ClientKind } from '../clients/client-kind.js';
import { connectedApps, type ConnectedAppsDeps } from './connected-apps.js';
import type { ConnectedApp } from './views.js';

/** What the register reads: the accounts, the admins' approvals, and what Connected apps reads. */
export interface RegisterDeps extends ConnectedAppsDeps {
  accounts: AccountStore;
  approvals: Pick<ApprovalStore, 'approversOf'>;
}

/** An admin's approval of scopes for one account and app (Ask an admin, Approvals). */
export interface Approver {
  by: string;
  scopes: string[];
}

/**
 * Who approved an app's access: `self` (the account, on the consent page), then each admin whose
 * approval let in scopes the app holds, with those scopes: `self; admin@school.example (students:write)`.
 */
export function approvedBy(app: Pick<ConnectedApp, 'scopes'>, approvers: readonly Approver[]): string {
  const admins = approvers.flatMap(({ by, scopes }) => {
    const held = scopes.filter((s) => app.scopes.includes(s));
    return held.length ? [`${by} (${held.join(' ')})`] : [];
  });
  return ['self', ...admins].join('; ');
}

/** How the register names each kind of app. */
export const KIND_WORDS: Record<ClientKind, string> = {
  open: 'self-declared',
  'metadata-document': 'metadata document',
  integration: 'integration',
  service: 'service',
  console: 'account pages',
};

/** One row of the register: an app an account allowed. */
export interface RegisterRow {
  app: {
    /** The name it registered (self-declared unless it is an integration); null when none or unknown. */
    name: string | null;
    clientId: string;
    kind: string;
    /** The host its metadata document was fetched from; null for other kinds. */
    domain: string | null;
    /** Its record could not be loaded just now: only the id is known. */
    unavailable: boolean;
  };
  account: { id: string; email: string; role: string };
  /** Who approved it: `self` (the account itself), then any admin who approved some of its scopes. */
  approvedBy: string;
  /** The scopes granted, under their data categories. */
  scopes: CategoryGroup[];
  /** When it was first allowed, ISO 8601. */
  grantedAt: string;
  /** When it ends, ISO 8601; null: when revoked. */
  endsAt: string | null;
  /** When any of its tokens was last used, ISO 8601; null: never. */
  lastUsed: string | null;
  /** Each API scope granted → when the API last served it an operation needing it; null: never. */
  scopeLastUsed: Record<string, string | null>;
}

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');

/** The register's row of `app`, allowed by `account`. */
export function registerRow(
  account: AccountProfile,
  app: ConnectedApp,
  approvers: readonly Approver[] = [],
): RegisterRow {
  const apiScopes = app.scopes.filter((s) => API_SCOPE_NAMES.includes(s));
  return {
    app: {
      name: app.name ?? null,
      clientId: app.clientId,
      kind: KIND_WORDS[app.kind],
      domain: app.kind === 'metadata-document' ? (verifiedHost(app.clientId) ?? null) : null,
      unavailable: app.unavailable === true,
    },
    account: { id: account._id, email: account.email, role: account.role },
    approvedBy: approvedBy(app, approvers),
    scopes: scopesByCategory(app.scopes),
    grantedAt: iso(app.firstAuthorized),
    endsAt: app.expiresAt === undefined ? null : iso(app.expiresAt),
    lastUsed: app.lastUsed === undefined ? null : iso(app.lastUsed),
    scopeLastUsed: Object.fromEntries(
      apiScopes.map((s) => [s, app.scopeUses[s] === undefined ? null : iso(app.scopeUses[s])]),
    ),
  };
}

/** One account's part of the register, with the apps as Connected apps has them (for the term review). */
export interface AccountRegister {
  account: AccountProfile;
  apps: ConnectedApp[];
  rows: RegisterRow[];
}

/**
 * The register, account by account, oldest account first (`after`: start after that account id),
 * each with its rows, newest app first; accounts with no app are left out.
 */
export async function* accessRegister(
  deps: RegisterDeps,
  { after }: { after?: string } = {},
): AsyncGenerator<AccountRegister> {
  const accounts = await deps.accounts.list();
  const start = after === undefined ? 0 : accounts.findIndex((a) => a._id === after) + 1;
  for (const account of accounts.slice(start)) {
    const apps = await connectedApps(deps, account._id);
    if (!apps.length) continue;
    const approvers = await Promise.all(
      apps.map((app) => deps.approvals.approversOf(account._id, app.clientId)),
    );
    yield { account, apps, rows: apps.map((app, i) => registerRow(account, app, approvers[i])) };
  }
}

/** One page of the register: whole accounts, until at least `pageSize` rows; `next` continues it. */
export async function registerPage(
  deps: RegisterDeps,
  { after, pageSize }: { after?: string; pageSize: number },
): Promise<{ rows: RegisterRow[]; next?: string }> {
  const rows: RegisterRow[] = [];
  let last: string | undefined;
  for await (const part of accessRegister(deps, { after })) {
    if (rows.length >= pageSize) return { rows, next: last };
    rows.push(...part.rows);
    last = part.account._id;
  }
  return { rows };
}
