/**
 * The grants one account holds, for Connected apps: read from the account's grant index
 * (`accountGrants:<accountId>`, written with each Grant by the adapter, redis-keys.ts) and ended per
 * app.
 *
 * Ending an app's access for an account is one Redis script (`oidcEndGrants`): every Grant this
 * account holds for that client is deleted with every token listed under it (access and refresh
 * tokens, unredeemed codes) and its token list, so the next token read finds nothing; the ended access
 * tokens are then published on the revocation feed (revocations.ts), so every resource API drops its
 * cached introspection answers at once. The client and the grants other accounts hold are untouched.
 * Login sessions keep naming the ended grant, which oidc-provider then treats as no grant: the next
 * authorization asks for consent again.
 */
import type { Redis } from 'ioredis';
import { accountGrantsKey, clientGrantsKey, grantListPrefix, modelKey } from './redis-keys.js';
import { withScripts } from './redis-scripts.js';
import { publishRevoked } from './revocations.js';

/** One grant as Connected apps shows it. */
export interface HeldGrant {
  grantId: string;
  clientId: string;
  /** Every scope granted (OpenID Connect and API scopes together). */
  scopes: string[];
  /** When it was first authorized, Unix seconds. */
  issuedAt: number;
}

interface GrantPayload {
  accountId?: string;
  clientId?: string;
  iat?: number;
  openid?: { scope?: string };
  resources?: Record<string, string>;
}

/** The grants `accountId` holds now (ids of grants since gone are dropped from its index). */
export async function accountGrants(redis: Redis, prefix: string, accountId: string): Promise<HeldGrant[]> {
  const indexKey = accountGrantsKey(prefix, accountId);
  const ids = await redis.smembers(indexKey);
  if (!ids.length) return [];
  const payloads = await redis.mget(ids.map((id) => modelKey(prefix, 'Grant', id)));
  const gone = ids.filter((_, i) => !payloads[i]);
  if (gone.length) void redis.srem(indexKey, ...gone).catch(() => undefined);
  return ids.flatMap((grantId, i) => {
    const json = payloads[i];
    if (!json) return [];
    const g = JSON.parse(json) as GrantPayload;
    if (g.accountId !== accountId || !g.clientId) return [];
    const scopes = [g.openid?.scope ?? '', ...Object.values(g.resources ?? {})].join(' ').split(' ');
    return [
      {
        grantId,
        clientId: g.clientId,
        scopes: [...new Set(scopes.filter(Boolean))],
        issuedAt: g.iat ?? 0,
      },
    ];
  });
}

/** What ending an app's access did. */
export interface EndedAccess {
  grants: number;
  tokens: number;
}

/** Ends every grant `accountId` holds for `clientId`, with all of their tokens (see the module comment). */
export async function endAccountAccess(
  redis: Redis,
  prefix: string,
  accountId: string,
  clientId: string,
): Promise<EndedAccess> {
  const r = withScripts(redis);
  const ids = (await accountGrants(redis, prefix, accountId))
    .filter((g) => g.clientId === clientId)
    .map((g) => g.grantId);
  if (!ids.length) return { grants: 0, tokens: 0 };
  const ended = await r.oidcEndGrants(
    ids.length * 2,
    ...ids.map((id) => modelKey(prefix, 'Grant', id)),
    ...ids.map((id) => grantListPrefix(prefix) + id),
  );
  await publishRevoked(r, prefix, ended);
  await Promise.all([
    redis.srem(accountGrantsKey(prefix, accountId), ...ids),
    redis.srem(clientGrantsKey(prefix, clientId), ...ids),
  ]);
  return { grants: ids.length, tokens: ended.length };
}
