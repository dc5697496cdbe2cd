/**
 * The grants one account holds, for Connected apps: read from the account's grant index
 * (`accountGrants:<accountId>`, written with each Grant by the adapter, redis-keys.ts) and ended per
 * app.
 *
 * Ending an app's access for an account ends each Grant this account holds for that client with one
 * Redis script in that grant's own hash slot (`oidcRevokeGrant`, the slot rule of redis-keys.ts, so
 * it runs unchanged on a Redis Cluster): the Grant is deleted with every token listed under it (access
 * and refresh tokens, unredeemed codes) and its token list, so the next token read finds nothing; the
 * ended access tokens are then published on the revocation feed (revocations.ts), so every resource
 * API drops its cached introspection answers at once. Only then are the ids taken out of the account's
 * and the client's indexes, so a revocation stopped half-way is finished by asking again. The client and the grants other accounts hold are untouched.
 * Login sessions keep naming the ended grant, which oidc-provider then treats as no grant: the next
 * authorization asks for consent again.
 */
import { getMany, type RedisClient } from '@school/shared';
import { accountGrantsKey, clientGrantsKey, grantListKey, modelKey, modelPrefix } from './redis-keys.js';
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
  /** When it ends, Unix seconds: the end the admin chose, or the configured grant lifetime. */
  expiresAt?: number;
}

interface GrantPayload {
  accountId?: string;
  clientId?: string;
  iat?: number;
  exp?: number;
  openid?: { scope?: string };
  resources?: Record<string, string>;
}

/** The grants `accountId` holds now (ids of grants since gone are dropped from its index). */
export async function accountGrants(
  redis: RedisClient,
  prefix: string,
  accountId: string,
): Promise<HeldGrant[]> {
  const indexKey = accountGrantsKey(prefix, accountId);
  const ids = await redis.smembers(indexKey);
  if (!ids.length) return [];
  // One GET per grant, pipelined: each grant is in a slot of its own (MGET cannot span slots).
  const payloads = await getMany(
    redis,
    ids.map((id) => modelKey(prefix, 'Grant', id)),
  );
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
        ...(g.exp ? { expiresAt: g.exp } : {}),
      },
    ];
  });
}

/**
 * Ends the access tokens issued under `grantId` and keeps everything else (the grant, its refresh
 * token): after the grant is narrowed, no token carries a scope it lost, and the app's next refresh
 * gets one with what is left. The tokens are deleted in the grant's slot and published on the
 * revocation feed, so every resource API drops its cached answers at once. Returns how many ended.
 */
export async function endGrantAccessTokens(
  redis: RedisClient,
  prefix: string,
  grantId: string,
): Promise<number> {
  const marker = modelPrefix(prefix, 'AccessToken');
  const keys = (await redis.lrange(grantListKey(prefix, grantId), 0, -1)).filter((k) => k.startsWith(marker));
  if (!keys.length) return 0;
  const ended = await redis.del(...keys);
  await publishRevoked(redis, prefix, keys);
  return ended;
}

/** What ending an app's access did. */
export interface EndedAccess {
  grants: number;
  tokens: number;
}

/** Ends every grant `accountId` holds for `clientId`, with all of their tokens (see the module comment). */
export async function endAccountAccess(
  redis: RedisClient,
  prefix: string,
  accountId: string,
  clientId: string,
): Promise<EndedAccess> {
  const r = withScripts(redis);
  const ids = (await accountGrants(redis, prefix, accountId))
    .filter((g) => g.clientId === clientId)
    .map((g) => g.grantId);
  if (!ids.length) return { grants: 0, tokens: 0 };
  const ended = (
    await Promise.all(
      ids.map((id) => r.oidcRevokeGrant(grantListKey(prefix, id), modelKey(prefix, 'Grant', id))),
    )
  ).flat();
  await publishRevoked(r, prefix, ended);
  await Promise.all([
    redis.srem(accountGrantsKey(prefix, accountId), ...ids),
    redis.srem(clientGrantsKey(prefix, clientId), ...ids),
  ]);
  return { grants: ids.length, tokens: ended.length };
}

/** Ends every grant `accountId` holds, for every app, with all of their tokens; returns the totals. */
export async function endAllAccountAccess(
  redis: RedisClient,
  prefix: string,
  accountId: string,
): Promise<EndedAccess> {
  const clients = new Set((await accountGrants(redis, prefix, accountId)).map((g) => g.clientId));
  const ended = await Promise.all([...clients].map((c) => endAccountAccess(redis, prefix, accountId, c)));
  return ended.reduce((a, b) => ({ grants: a.grants + b.grants, tokens: a.tokens + b.tokens }), {
    grants: 0,
    tokens: 0,
  });
}
