/**
 * Whether a refresh token presented again comes from the installation the grant's refreshes come from
 * (docs/decisions.md "Refresh-token reuse window"). It is when the same client presents it, within
 * the window after its rotation, and:
 * - for a DPoP-bound token, with a proof signed by the key it is bound to;
 * - for an unbound one, from the address (client-address.ts's key) of the grant's last rotation
 *   (storage/refresh-lineage.ts).
 *
 * A hosted client (clients/client-kind.ts: every redirect URI a fixed https callback, e.g. an MCP
 * connector running in its provider's cloud) refreshes from a pool of workers and addresses, which
 * race with one token. For it an unbound token from another address is also the same installation:
 * - when both addresses are inside the egress ranges an operator listed for it
 *   (clients/egress-ranges.ts), for the whole window;
 * - else when it is the token the grant's last rotation replaced (not one a generation older),
 *   presented within HOSTED_REFRESH_RACE of that rotation: the race of two workers, which lasts
 *   seconds, not the copy of a token, which is used later or after another rotation.
 */
import type { RedisClient } from '@school/shared';
import type { KoaContextWithOIDC, RefreshToken } from 'oidc-provider';
import { hasFixedHttpsCallbacks } from '../../clients/client-kind.js';
import { inEgressRanges } from '../../clients/egress-ranges.js';
import { clientEgressRanges } from '../../storage/client-egress.js';
import { readDpopProof } from '../dpop-proof.js';

/** Where a request came from: its address key (client-address.ts) and its address as Koa saw it. */
export interface Origin {
  address: string;
  ip?: string;
}

/** How a presented token was found to come from the same installation. */
export type SameBy = 'dpop_key' | 'address' | 'egress_range' | 'hosted_race';

/** The same installation (and how it was told), or why not. */
export type Judgement = { how: SameBy; reason?: undefined } | { reason: string };

/** What the judgement needs besides the request. */
export interface InstallationRules {
  redis: RedisClient;
  prefix: string;
  /** A hosted client's race window, seconds (HOSTED_REFRESH_RACE); at most the reuse window. */
  raceSeconds: number;
}

const now = () => Math.floor(Date.now() / 1000);

/** Whether the request holds the DPoP key `token` is bound to, or why not. */
export async function judgeKey(ctx: KoaContextWithOIDC, token: RefreshToken): Promise<Judgement> {
  return (await readDpopProof(ctx))?.thumbprint === token.jkt
    ? { how: 'dpop_key' }
    : { reason: 'without a proof of its DPoP key' };
}

/**
 * Whether an unbound token presented from `here` comes from the installation whose rotation came
 * from `last` at `rotatedAt`; `latest`: the token presented is the one that rotation replaced.
 */
export async function judgeOrigin(
  { redis, prefix, raceSeconds }: InstallationRules,
  ctx: KoaContextWithOIDC,
  last: Origin,
  here: Origin,
  rotatedAt: number,
  latest: boolean,
): Promise<Judgement> {
  if (last.address === here.address) return { how: 'address' };
  const client = ctx.oidc.client!;
  if (!hasFixedHttpsCallbacks(client)) return { reason: 'from another address than its last refresh' };
  const ranges = await clientEgressRanges(redis, prefix, client.clientId);
  if (inEgressRanges(last.ip, ranges) && inEgressRanges(here.ip, ranges)) return { how: 'egress_range' };
  if (!latest) return { reason: 'a generation older, from another address than its last refresh' };
  if (now() - rotatedAt > raceSeconds)
    return { reason: 'from another address than its last refresh, after the race window' };
  return { how: 'hosted_race' };
}
