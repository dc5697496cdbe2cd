/**
 * `GET /.well-known/oauth-protected-resource`: the Protected Resource Metadata of RFC 9728. The
 * resource identifier and the authorization server are both `BASE_URL` (docs/decisions.md), byte for byte
 * the issuer; the scopes are the 35 API scopes (the OpenID Connect scopes belong to the auth server).
 */
import { API_SCOPE_NAMES } from '@school/shared';
import type { ApiConfig } from '../config.js';

/** The metadata document for a deployment. */
export function protectedResourceMetadata(config: Pick<ApiConfig, 'BASE_URL'>) {
  return {
    resource: config.BASE_URL,
    authorization_servers: [config.BASE_URL],
    scopes_supported: [...API_SCOPE_NAMES],
    bearer_methods_supported: ['header'],
    resource_name: 'School platform API',
    resource_documentation: `${config.BASE_URL}/auth.md`,
  };
}
