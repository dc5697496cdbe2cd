/**
 * The headers docs/decisions.md puts on auth answers, in one place:
 * - 401 `invalid_token` and 403 `insufficient_scope`: `WWW-Authenticate: Bearer error=..., ...,
 *   resource_metadata="<PRM URL>"` (RFC 6750 §3, RFC 9728 §5.1), both with `scope` naming every scope
 *   the operation needs (the MCP authorization spec of 2026-07-28 asks for it on the 401 too, so a
 *   client asks for the right scopes in one round; a 401 outside any operation has none);
 * - anonymous 403 `access_denied`: no challenge at all (anonymous is not an error), only
 *   `Link: <PRM URL>; rel="oauth-protected-resource"` so a client can discover how to get a token.
 */
import { AccessDeniedError, InsufficientScopeError, InvalidTokenError } from '../lib/errors.js';

/** Makes a value safe inside an auth-param quoted string (RFC 9110 §11.2): no quotes, backslashes or controls. */
function quoted(value: string): string {
  const safe = [...value].filter(
    (c) => c !== '"' && c !== '\\' && c.charCodeAt(0) >= 32 && c.charCodeAt(0) !== 127,
  );
  return `"${safe.join('')}"`;
}

/** Builds the challenges for one deployment. */
export function challenges(prmUrl: string) {
  return {
    invalidToken(description: string, scope?: string): InvalidTokenError {
      const scopeParam = scope ? `, scope=${quoted(scope)}` : '';
      return new InvalidTokenError(description, {
        'WWW-Authenticate': `Bearer error="invalid_token", error_description=${quoted(description)}${scopeParam}, resource_metadata=${quoted(prmUrl)}`,
      });
    },
    insufficientScope(scope: string): InsufficientScopeError {
      return new InsufficientScopeError(scope, {
        'WWW-Authenticate': `Bearer error="insufficient_scope", scope=${quoted(scope)}, resource_metadata=${quoted(prmUrl)}`,
      });
    },
    accessDenied(scope: string): AccessDeniedError {
      return new AccessDeniedError(scope, { Link: `<${prmUrl}>; rel="oauth-protected-resource"` });
    },
  };
}

/** The challenge builders of one deployment. */
export type Challenges = ReturnType<typeof challenges>;
