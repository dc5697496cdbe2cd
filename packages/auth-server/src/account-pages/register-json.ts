/**
 * A row of the Access register (access-register.ts) as its JSON download and `school-auth grants
 * export --format json` write it, in the style of every operator command (docs/operators.md): keys in
 * snake_case, an id as `<thing>_id`, a time as ISO 8601 in UTC under a key ending in `_at`, a time
 * there is none of left out. Names and ids are written exactly as stored (escaped only where a
 * terminal would act on them, by the writer).
 */
import type { RegisterRow } from './access-register.js';

/** `2026-11-29T07:40:00Z` as `2026-11-29T07:40:00.000Z`; undefined for none. */
const at = (iso: string | null) => (iso === null ? undefined : new Date(iso).toISOString());

/** One row of the JSON register. */
export function registerJson(row: RegisterRow) {
  return {
    app: {
      client_id: row.app.clientId,
      client_name: row.app.name,
      kind: row.app.kind,
      domain: row.app.domain,
      ...(row.app.unavailable ? { unavailable: true } : {}),
    },
    account: { account_id: row.account.id, email: row.account.email, role: row.account.role },
    approved_by: row.approvedBy,
    scopes: row.scopes.map((g) => ({ category: g.category, title: g.title, scopes: g.scopes })),
    granted_at: at(row.grantedAt),
    ends_at: at(row.endsAt),
    last_used_at: at(row.lastUsed),
    scope_uses: Object.entries(row.scopeLastUsed).map(([scope, used]) => ({
      scope,
      last_used_at: at(used),
    })),
  };
}
