/**
 * oidc-provider's configuration: docs/contract.md and docs/decisions.md written as provider options.
 *
 * Choices that are not obvious from the option names:
 * - All 38 scopes are listed in `scopes`, so a token obtained without `resource` carries every granted
 *   scope and works at the API and at userinfo; with `resource=BASE_URL` it is bound (`aud`) and
 *   carries only the API scopes (docs/decisions.md).
 * - Refresh tokens are issued to every client allowed the grant, without `offline_access`, and do not
 *   die with the browser session (`issueRefreshToken`, `expiresWithSession`). The Grant's TTL is the
 *   absolute cap on a refresh-token chain. Public clients' refresh tokens rotate on every use, DPoP-bound
 *   ones too (refresh-extension/rotation.ts); reuse of a rotated one revokes the grant unless the
 *   same installation presents it within the reuse window (refresh-extension/).
 * - PKCE S256 is required of every client, confidential ones too; `pkce.required` must be synchronous.
 * - Sign-out is RP-Initiated Logout at `end_session_endpoint` (sign-out-pages.ts); it ends the login
 *   session, never an app's access. This service's own account pages are a configured client that
 *   signs in like any app (account-console.ts).
 * - DPoP is optional: a proof at the token endpoint binds the tokens to the client's key (public
 *   clients' refresh tokens too; confidential clients' refresh tokens are bound by their client
 *   authentication, RFC 9449 §5).
 * - Device pairing (RFC 8628) only with DEVICE_PAIRING on, for the clients it allows
 *   (device-pairing-policy.ts); its page is the auth server's own (device-pairing/), never
 *   oidc-provider's, whose user code routes it answers instead. Codes live 5 minutes.
 * - Anything else not in docs/contract.md is off: PAR, dev interactions.
 */
import type { Configuration, KoaContextWithOIDC, Client, SubjectTypes } from 'oidc-provider';
import { errors } from 'oidc-provider';
import {
  ALL_SCOPE_NAMES,
  API_SCOPE_NAMES,
  BASELINE_SCOPE_NAMES,
  DPOP_SIGNING_ALGS,
  INTERACTION_PATH,
  OAUTH_ROUTES,
  namesResource,
} from '@school/shared';
import type { AuthConfig } from '../config.js';
import type { AccountStore } from '../accounts/account-store.js';
import type { AdapterConstructor } from '../storage/redis-adapter.js';
import type { SigningJwk } from './keys.js';
import { CLIENT_ROLE, mayIntrospectEveryToken } from '../clients/client-kind.js';
import { validateClientMetadata } from './client-policy.js';
import { renderError } from './render-error.js';
import { registeredClientId } from './registered-client-id.js';
import { loadExistingGrant } from './cimd-consent.js';
import type { CimdConsentStore } from './cimd-consent.js';
import { accountConsoleClient, withAccountConsoleGrant } from './account-console.js';
import { forgetRefusals, withinGrant } from './grant-scopes.js';
import { withHeldGrant, type GrantIndex } from './held-grant.js';
import { onlyOwnGrant } from './own-grant.js';
import { signOutSources } from './sign-out-pages.js';
import { StorageUnavailable } from './storage-outage.js';
import { interactionPolicyWithPasskeys } from '../passkeys/passkey-for-writes.js';
import { rotateRefreshToken } from './refresh-extension/rotation.js';
import { applyDevicePairingPolicy } from './device-pairing-policy.js';

/** Seconds a device pairing code lives (RFC 8628 `expires_in`): long enough to sign in and type it. */
export const DEVICE_CODE_TTL = 300;

/**
 * How old an account read the token endpoint may reuse, ms: for this long a deleted account can still
 * refresh, and a changed name or email may still show in new ID tokens.
 */
export const TOKEN_ACCOUNT_MAX_AGE_MS = 5_000;

/**
 * The subject identifier types offered (`subject_types_supported`): public only, so every client sees
 * an account by the same `sub` (the resource API and the admin pages rely on that). With no pairwise
 * client possible, the direct introspection path skips oidc-provider's client lookup, which exists to
 * compute pairwise subjects (http/direct-introspection.ts).
 */
export const SUBJECT_TYPES: readonly SubjectTypes[] = ['public'];

/**
 * oidc-provider's outbound fetch (`jwks_uri`, `sector_identifier_uri`, notifications): refused before
 * any connection. This server fetches one kind of client URL, a metadata-document `client_id`, with
 * its own fetcher (cimd/document-fetcher.ts); open registration refuses the members oidc-provider
 * would fetch (client-policy.ts), and this keeps a client stored some other way from being followed.
 */
export const refuseOutboundFetch = (): Promise<Response> =>
  Promise.reject(new Error('this server does not fetch client URLs'));

/** Everything the configuration is built from. */
export interface ProviderDeps {
  config: AuthConfig;
  /**
   * oidc-provider's storage: the Redis adapter. `'memory'` selects oidc-provider's built-in in-memory
   * adapter instead; only the benchmark's reference server (bench/) uses it, to measure what our
   * storage costs against none. It is per-process, evicts under load and loses everything on restart.
   */
  adapter: AdapterConstructor | 'memory';
  accounts: AccountStore;
  keys: SigningJwk[];
  /** Where consents to metadata-document clients are tied to their document (provider/cimd-consent.ts). */
  cimdConsents?: CimdConsentStore;
  /**
   * The accounts' grant index (storage/account-grants.ts), so that a sign-in that finds no grant in
   * its session starts from what the account already allowed the client (held-grant.ts). Without it,
   * only the session's grant is found (oidc-provider's default).
   */
  grantIndex?: GrantIndex;
}

/** The resource identifier forms accepted for the API (`@school/shared` resource-identifier.ts); all map to `BASE_URL`. */
export function isApiResource(config: AuthConfig, indicator: string): boolean {
  return namesResource(indicator, config.BASE_URL);
}

const KNOWN_SCOPES = new Set(ALL_SCOPE_NAMES);

/**
 * `extraParams.scope`, run after oidc-provider's client, redirect_uri, PKCE and resource checks (so an
 * error is redirected with `state` and `iss`). A request without `scope` gets the protected
 * resource's baseline (`BASELINE_SCOPE_NAMES`, what its metadata lists), as OAuth 2.1 §3.2.2.1 lets
 * a server do (docs/decisions.md). An explicit `scope` is taken as sent: oidc-provider ignores names
 * it does not define (RFC 6749 §3.3), and a request left with none would show an empty consent page
 * and end in `access_denied`, so it is refused up front with `invalid_scope`.
 */
function scopeOrBaseline(ctx: KoaContextWithOIDC, value: string | undefined): void {
  if (value === undefined) {
    ctx.oidc.params!.scope = BASELINE_SCOPE_NAMES.join(' ');
    return;
  }
  if (!value.split(' ').some((name) => KNOWN_SCOPES.has(name))) {
    // No `scope` member on the error: the typings demand one, but there is no accepted scope to name.
    throw new errors.InvalidScope(
      'request at least one of the scopes in scopes_supported',
      undefined as unknown as string,
    );
  }
}

/** Builds the oidc-provider configuration. */
export function buildConfiguration({
  config,
  adapter,
  accounts,
  keys,
  cimdConsents,
  grantIndex,
}: ProviderDeps): Configuration {
  return {
    ...(adapter === 'memory' ? {} : { adapter }),
    // The configured clients hold no tokens: the introspector has no grant types, and the account pages
    // never redeem their codes. Token reads treat a client that is not stored in Redis as gone
    // (redis-adapter.ts), so a configured client with tokens would need that check to know it.
    clients: [
      {
        client_id: config.INTROSPECTION_CLIENT_ID,
        client_secret: config.INTROSPECTION_CLIENT_SECRET,
        client_name: 'School resource API',
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: [],
        response_types: [],
        redirect_uris: [],
        [CLIENT_ROLE]: 'introspector',
      },
      accountConsoleClient(config.BASE_URL),
    ],
    loadExistingGrant: withAccountConsoleGrant(
      forgetRefusals(
        onlyOwnGrant(
          grantIndex
            ? withHeldGrant(grantIndex, cimdConsents, loadExistingGrant(cimdConsents))
            : loadExistingGrant(cimdConsents),
        ),
      ),
    ),
    jwks: { keys },
    cookies: {
      keys: config.COOKIE_SECRETS,
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    scopes: [...ALL_SCOPE_NAMES],
    claims: {
      openid: ['sub'],
      profile: ['name', 'given_name', 'family_name', 'updated_at'],
      email: ['email', 'email_verified'],
    },
    // The token endpoint looks the account up on every code exchange and refresh: an account read in
    // the last few seconds will do there (AccountStore). Userinfo and the rest read MongoDB.
    findAccount: (ctx, sub) =>
      accounts
        .findAccount(sub, ctx?.oidc?.route === 'token' ? TOKEN_ACCOUNT_MAX_AGE_MS : 0)
        .catch((err: unknown) => {
          throw new StorageUnavailable(err); // MongoDB unreachable: 503, not 500
        }),
    routes: { ...OAUTH_ROUTES },
    responseTypes: ['code'],
    subjectTypes: [...SUBJECT_TYPES],
    pkce: { required: () => true },
    clientAuthMethods: ['none', 'client_secret_post'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      id_token_signed_response_alg: 'ES256',
    },
    enabledJWA: {
      idTokenSigningAlgValues: ['ES256', 'RS256'],
      dPoPSigningAlgValues: [...DPOP_SIGNING_ALGS],
    },
    allowOmittingSingleRegisteredRedirectUri: false,
    extraParams: { scope: scopeOrBaseline },
    extraClientMetadata: {
      properties: [CLIENT_ROLE],
      validator: (ctx, key, value, metadata) => {
        if (key === CLIENT_ROLE) applyDevicePairingPolicy(config.DEVICE_PAIRING, ctx, metadata);
        validateClientMetadata(ctx, key, value, metadata);
      },
    },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken,
    expiresWithSession: () => false,
    ttl: {
      AccessToken: (ctx) => withinGrant(ctx, config.ACCESS_TOKEN_TTL),
      AuthorizationCode: config.AUTHORIZATION_CODE_TTL,
      RefreshToken: (ctx) => withinGrant(ctx, config.REFRESH_TOKEN_TTL),
      Grant: config.GRANT_TTL,
      Session: config.SESSION_TTL,
      Interaction: config.INTERACTION_TTL,
      DeviceCode: DEVICE_CODE_TTL,
      IdToken: config.ACCESS_TOKEN_TTL,
    },
    interactions: {
      url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}`,
      policy: interactionPolicyWithPasskeys(config.PASSKEY_FOR_WRITE_CONSENT),
    },
    renderError,
    fetch: refuseOutboundFetch,
    sectorIdentifierUriValidate: () => false,
    discovery: {
      // Client ID Metadata Documents are resolved by our own adapter (cimd/), not by oidc-provider's
      // experimental feature: see cimd/cimd-resolver.ts for why.
      client_id_metadata_document_supported: true,
      introspection_endpoint_auth_methods_supported: ['client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
      service_documentation: `${config.BASE_URL}/auth.md`,
    },
    features: {
      devInteractions: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // DPoP (RFC 9449), optional: a client sending a proof gets tokens bound to its key (`cnf.jkt`),
      // the resource API then asks for a proof with every call; one sending none gets bearer tokens
      // as before. No nonces (docs/decisions.md): without a `nonceSecret` oidc-provider issues none,
      // and a proof's `iat` must be within its window instead.
      dPoP: { enabled: true, requireNonce: () => false },
      rpInitiatedLogout: { enabled: true, ...signOutSources(accounts) },
      clientCredentials: { enabled: false },
      deviceFlow: {
        enabled: config.DEVICE_PAIRING !== 'off',
        // 20 consonants without look-alikes (no vowels, no digits), shown as XXXX-XXXX: 20^8 codes.
        charset: 'base-20',
        mask: '****-****',
        // Where the request came from, which the pairing page shows the person approving it.
        deviceInfo: (ctx) => ({ ip: ctx.ip, ua: ctx.get('user-agent').slice(0, 200) }),
      },
      userinfo: { enabled: true },
      revocation: {
        enabled: true,
        // A client revokes only its own tokens. Another client's token gets exactly the answer an
        // unknown token gets (the empty 200 of RFC 7009 §2.2) and stays valid: any other answer
        // would tell a client that a token it holds is live and whose it is (an oracle).
        allowedPolicy: (_ctx: KoaContextWithOIDC, client: Client, token) =>
          token.clientId === client.clientId,
      },
      registration: {
        enabled: true,
        initialAccessToken: false,
        issueRegistrationAccessToken: false,
        idFactory: registeredClientId,
      },
      introspection: {
        enabled: true,
        // Introspecting services see every token; any other client only its own (docs/decisions.md).
        allowedPolicy: (_ctx: KoaContextWithOIDC, client: Client, token) =>
          mayIntrospectEveryToken(client, config.INTROSPECTION_CLIENT_ID) ||
          (token.clientId !== undefined && token.clientId === client.clientId),
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => false,
        getResourceServerInfo: (_ctx, indicator) => {
          if (!isApiResource(config, indicator)) {
            throw new errors.InvalidTarget(`resource must be ${config.BASE_URL}`);
          }
          return {
            scope: API_SCOPE_NAMES.join(' '),
            audience: config.BASE_URL,
            accessTokenFormat: 'opaque',
            accessTokenTTL: config.ACCESS_TOKEN_TTL,
          };
        },
      },
    },
  };
}
