/**
 * `school-auth clients check <url>`: how this server would take the metadata document at `url`,
 * without taking it. The document is fetched by the deployment's own fetcher (the same https-only,
 * special-use-address and size rules as the server's) and read by the same rules (metadata-document.ts);
 * nothing is stored or cached and no budget is spent: an operator's dry run before a client's first use,
 * or to see why a client is refused.
 */
import type { RedisClient } from '@school/shared';
import { errors } from 'oidc-provider';
import { cimdAllowedKey } from '../storage/redis-keys.js';
import { cacheWindow, type CimdCachePolicy } from './cimd-resolver.js';
import type { FetchedDocument } from './document-fetcher.js';
import type { DevicePairingMode } from '../provider/device-pairing-policy.js';
import {
  checkDocument,
  grantUsability,
  redirectUsability,
  toClientMetadata,
  type DroppedValue,
} from './metadata-document.js';
import { requireUrl } from './cimd-operator.js';

/** How a document would be taken, as `school-auth clients check` prints it. */
export interface CimdCheck {
  client_id: string;
  outcome: 'accepted' | 'refused';
  /** Why it would be refused: the fetch's problem, or what a client would be told. */
  refused?: string;
  /** Whether an operator allowed its https redirect URIs. */
  https_redirects_allowed: boolean;
  /** The client this server would load: the members and values it keeps. */
  client?: Record<string, unknown>;
  /** What the document lists that the client would not get, and why. */
  dropped?: DroppedValue[];
  /** The redirect URIs the client could use, and those it could not for now. */
  redirect_uris?: { usable: string[]; not_usable: DroppedValue[] };
  /** The authentication method the document offered, and the one it gets. */
  token_endpoint_auth_method?: { offered: string[]; negotiated: 'none' };
  /** How long the document would be used without another fetch. */
  cache?: { max_age_header?: number; fresh_seconds: number; fresh_until: string; stale_until: string };
}

/** Checks the document at `url` (see the module comment). */
export async function checkCimdDocument(
  deps: {
    redis: RedisClient;
    prefix: string;
    fetchDocument: (url: string) => Promise<FetchedDocument>;
    policy: CimdCachePolicy;
    /** DEVICE_PAIRING (off when not given). */
    devicePairing?: DevicePairingMode;
  },
  url: string,
): Promise<CimdCheck> {
  requireUrl(url);
  const httpsAllowed = (await deps.redis.sismember(cimdAllowedKey(deps.prefix), url)) === 1;
  const base = { client_id: url, https_redirects_allowed: httpsAllowed };
  let fetched: FetchedDocument;
  try {
    fetched = await deps.fetchDocument(url);
  } catch (err) {
    return { ...base, outcome: 'refused', refused: `the fetch failed: ${(err as Error).message}` };
  }
  const body = fetched.body as Record<string, unknown>;
  const offered = [body?.token_endpoint_auth_method, body?.token_endpoint_auth_methods_supported]
    .flat()
    .filter((m): m is string => typeof m === 'string');
  try {
    const { doc, dropped } = checkDocument(url, fetched.body);
    const { usable, unusable } = redirectUsability(doc, httpsAllowed);
    const use = { allowed: httpsAllowed, devicePairing: deps.devicePairing };
    const client = toClientMetadata(doc, use);
    const window = cacheWindow(deps.policy, fetched.maxAgeSeconds, Date.now());
    return {
      ...base,
      outcome: 'accepted',
      client,
      dropped: [...dropped, ...grantUsability(doc, use).unusable, ...unusable],
      redirect_uris: { usable, not_usable: unusable },
      token_endpoint_auth_method: { offered: [...new Set(offered)], negotiated: 'none' },
      cache: {
        max_age_header: fetched.maxAgeSeconds,
        fresh_seconds: window.seconds,
        fresh_until: new Date(window.freshUntil).toISOString(),
        stale_until: new Date(window.staleUntil).toISOString(),
      },
    };
  } catch (err) {
    if (!(err instanceof errors.OIDCProviderError)) throw err;
    return { ...base, outcome: 'refused', refused: `${err.error}: ${err.error_description ?? ''}` };
  }
}
