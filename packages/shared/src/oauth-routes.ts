/**
 * Where the authorization server answers (docs/contract.md, docs/decisions.md): the auth server mounts its
 * endpoints here, the resource API introspects at and documents the same paths. A path changed here
 * changes both services.
 */

/** oidc-provider's routes, by its route names. */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/api/oauth/token',
  userinfo: '/api/oauth/userinfo',
  revocation: '/api/oauth/revoke',
  introspection: '/api/oauth/introspect',
  registration: '/api/oauth/register',
  jwks: '/api/oauth/jwks',
  end_session: '/oauth/session/end',
  pushed_authorization_request: '/oauth/par',
  code_verification: '/oauth/device',
  device_authorization: '/api/oauth/device/auth',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
} as const;

/** The discovery documents of the public origin. */
export const DISCOVERY_PATHS = {
  /** RFC 8414, served by the auth server. */
  authorizationServer: '/.well-known/oauth-authorization-server',
  /** OpenID Connect Discovery 1.0, served by the auth server. */
  openidConfiguration: '/.well-known/openid-configuration',
  /** RFC 9728, served by the resource API. */
  protectedResource: '/.well-known/oauth-protected-resource',
} as const;

/** Where the login and consent pages live; the `_interaction` cookie is scoped to this path. */
export const INTERACTION_PATH = '/oauth/interaction';

/**
 * Where a signed-in person manages what they granted (Connected apps) and, for the school's admins,
 * every client, the audit trail and staff accounts: the auth server's account pages.
 */
export const ACCOUNT_PATH = '/oauth/account';

/** The scripts of the passkey forms, served by the auth server from this origin (never a CDN). */
export const PAGE_SCRIPTS = {
  /** `@simplewebauthn/browser`'s bundle as the package ships it. */
  webauthnLibrary: '/oauth/assets/simplewebauthn-browser.js',
  /** The passkey forms' own script. */
  passkeys: '/oauth/assets/passkeys.js',
} as const;
