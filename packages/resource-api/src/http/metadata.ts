/**
 * `GET /.well-known/oauth-protected-resource`: the Protected Resource Metadata of RFC 9728. The
 * resource identifier and the authorization server are both `BASE_URL` (docs/decisions.md), byte for byte
 * the issuer. `scopes_supported` is the baseline (`@school/shared` scopes.ts), not every API scope: an
 * MCP client with no challenge yet asks for exactly this list, so it is what an admin approves at first
 * sign-in. Every other scope is named by the challenge of the operation that needs it, and the
 * authorization-server metadata lists them all.
 */
import { BASELINE_SCOPE_NAMES, DPOP_SIGNING_ALGS } from '@school/shared';
import type { ApiConfig } from '../config.js';

/** The metadata document for a deployment. */
export function protectedResourceMetadata(config: Pick<ApiConfig, 'BASE_URL'>) {
  return {
    resource: config.BASE_URL,
    authorization_servers: [config.BASE_URL],
    scopes_supported: [...BASELINE_SCOPE_NAMES],
    bearer_methods_supported: ['header'],
    // RFC 9728 §2: DPoP proofs are checked for DPoP-bound tokens; bearer tokens are accepted too.
    dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGS],
    dpop_bound_access_tokens_required: false,
    resource_name: 'School platform API',
    resource_documentation: `${config.BASE_URL}/auth.md`,
  };
}
