/**
 * Readiness of token checking: can this API introspect at all, with its own
 * credentials? It introspects a token that cannot exist and expects the auth server's ordinary
 * `{"active": false}`. A wrong INTROSPECTION_CLIENT_SECRET, an unreachable or failing auth server
 * all show here, before callers get 503s. The result is kept for a few seconds and concurrent probes
 * share one call, so however often an orchestrator asks, the auth server sees at most one
 * introspection per `cacheMs` from this process.
 */
import { randomBytes } from 'node:crypto';
import {
  AuthServerUnavailableError,
  IntrospectionCredentialsError,
  type Introspector,
} from './introspection-client.js';

/** `ok`, or what is wrong with introspection, in words for the `/readyz` body. */
export type IntrospectionReadiness = () => Promise<string>;

/** Builds the cached readiness check of `introspector` (`cacheMs`: how long one answer is reused). */
export function introspectionReadiness(introspector: Introspector, cacheMs = 5000): IntrospectionReadiness {
  // A value no token of ours can have (minted tokens are 43 base64url characters).
  const probeToken = `readiness-probe-${randomBytes(24).toString('hex')}`;
  let last: { at: number; result: Promise<string> } | undefined;
  const check = async (): Promise<string> => {
    try {
      const answer = await introspector.introspect(probeToken);
      return answer.active ? 'the auth server calls a token that cannot exist active' : 'ok';
    } catch (err) {
      if (err instanceof IntrospectionCredentialsError) {
        return 'credentials refused by the auth server (check INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET)';
      }
      if (err instanceof AuthServerUnavailableError) return `auth server unavailable: ${err.message}`;
      return 'introspection failed';
    }
  };
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= cacheMs) last = { at: now, result: check() };
    return last.result;
  };
}
