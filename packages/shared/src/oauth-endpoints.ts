/**
 * Every route of the authorization server, and the discovery documents of this origin, as one table:
 * a row per route, with the methods it answers, whether a browser on another origin may call it, its
 * rate limit, how a client authenticates there, its body cap and, where clients are meant to call
 * it, its request and response schemas. The auth server mounts each row's steps in front of
 * oidc-provider from it; the resource API renders its OpenAPI document and `/auth.md` from it; a
 * test holds it against every route the auth server serves, so a route cannot be added without a row.
 *
 * Paths are written as routers write them: `:name` stands for one path segment.
 */
import { z } from 'zod';
import { DISCOVERY_PATHS, OAUTH_ROUTES } from './oauth-routes.js';
import { PAGE_ROUTERS, SERVICE_ROUTES, pagePath, type PageRouterSpec } from './page-routes.js';
import { REGISTRATION_CAPS } from './registration-caps.js';
import {
  IntrospectionRequest,
  IntrospectionResponse,
  JsonDocument,
  OAuthErrorBody,
  RegistrationRequest,
  RegistrationResponse,
  RevocationRequest,
  DeviceAuthorizationRequest,
  DeviceAuthorizationResponse,
  TokenRequest,
  TokenResponse,
  UserInfo,
  type NamedSchema,
} from './oauth-endpoint-schemas.js';

/** An HTTP method a row may list. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** The rate limit a row is counted under (the auth server's `RATE_LIMIT_*` settings). */
export type RateLimitName =
  'authorization' | 'registration' | 'token' | 'introspection' | 'revocation' | 'deviceAuthorization';

/**
 * How a client authenticates at a row, exactly as the discovery metadata lists it: `client_secret_post`
 * or `none` (token, revocation), `client_secret_post` alone (introspection). Anything else presented
 * (an `Authorization` header, `client_assertion`) is refused before oidc-provider sees it.
 */
export type ClientAuthentication = 'client_secret_post_or_none' | 'client_secret_post';

/** The largest body a row reads, and the error code of a larger one (413). */
export interface BodyCap {
  bytes: number;
  media: 'form' | 'json';
  /** `request_too_large`, or RFC 7591's `invalid_client_metadata` at registration. */
  tooLargeCode: 'request_too_large' | 'invalid_client_metadata';
}

/** One documented response. */
export interface DocResponse {
  description: string;
  schema?: NamedSchema;
  contentType?: string;
  headers?: string[];
}

/** What the OpenAPI document says about a row a client is meant to call. */
export interface EndpointDocs {
  tag: 'oauth' | 'discovery';
  operationId: string;
  summary: string;
  description: string;
  query?: z.ZodObject;
  form?: NamedSchema;
  json?: NamedSchema;
  /** Scheme names for `security`; absent: no security requirement. */
  security?: Record<string, string[]>[];
  responses: Record<string, DocResponse>;
}

/** Who serves a row, and how it is reached. */
export type EndpointKind =
  /** oidc-provider's routes (the auth server mounts the row's steps in front of them). */
  | 'oauth'
  /** Pages a browser navigates to; their routers answer a wrong method themselves. */
  | 'page'
  /** The auth server's own port only (the edge does not route them): health and metrics. */
  | 'service'
  /** A document the resource API serves. */
  | 'resource-api';

/** One row. */
export interface Endpoint {
  path: string;
  kind: EndpointKind;
  /** The methods it answers; any other is 405 with `Allow` (a `service` row takes any method). */
  methods: readonly HttpMethod[];
  /** Open to every origin without credentials (OAuth 2.0 for Browser-Based Applications). */
  cors: boolean;
  rateLimit?: RateLimitName;
  clientAuthentication?: ClientAuthentication;
  body?: BodyCap;
  /**
   * A step of the auth server's own, last before oidc-provider, that answers the requests it knows
   * how to and passes on the rest: `direct-introspection`, the resource API's questions about active
   * access tokens (the auth server's http/direct-introspection.ts); `device-polling`, a device polling
   * for its pairing faster than its interval, answered `slow_down` (http/device-polling.ts).
   */
  shortcut?: EndpointShortcut;
  docs?: EndpointDocs;
}

/** The auth server's own answering steps a row can name. */
export type EndpointShortcut = 'direct-introspection' | 'device-polling';

/** oidc-provider's own cap on a form or JSON body; over it, it answers 413. */
export const PROVIDER_BODY_LIMIT = 56 * 1024;

const READ = ['GET', 'HEAD'] as const;
const FORM: BodyCap = { bytes: PROVIDER_BODY_LIMIT, media: 'form', tooLargeCode: 'request_too_large' };

type Responses = EndpointDocs['responses'];

/** What any auth-server JSON endpoint may answer besides its own results: overload and outage. */
function guarded(responses: Responses, opts: { limited?: boolean; body?: boolean } = {}): Responses {
  return {
    ...responses,
    ...(opts.body
      ? {
          '413': {
            description:
              'request_too_large (invalid_client_metadata at registration): the body is over the limit',
            schema: OAuthErrorBody,
          },
        }
      : {}),
    ...(opts.limited
      ? {
          '429': {
            description: 'too_many_requests: a rate limit was hit (per client id, else per address)',
            schema: OAuthErrorBody,
            headers: ['Retry-After'],
          },
        }
      : {}),
    '503': {
      description: 'temporarily_unavailable: the authorization server cannot reach its storage',
      schema: OAuthErrorBody,
      headers: ['Retry-After'],
    },
  };
}

/** A discovery document: read by anyone, from any origin. */
function discovery(path: string, kind: EndpointKind, operationId: string, summary: string): Endpoint {
  return {
    path,
    kind,
    methods: READ,
    cors: true,
    docs: {
      tag: 'discovery',
      operationId,
      summary,
      description: summary,
      responses: { '200': { description: 'JSON document', schema: JsonDocument } },
    },
  };
}

/** The table. */
export const ENDPOINTS: readonly Endpoint[] = [
  {
    path: OAUTH_ROUTES.registration,
    kind: 'oauth',
    methods: ['POST'],
    cors: true,
    rateLimit: 'registration',
    body: { bytes: REGISTRATION_CAPS.body, media: 'json', tooLargeCode: 'invalid_client_metadata' },
    docs: {
      tag: 'oauth',
      operationId: 'oauth.register',
      summary: 'Register a client (RFC 7591)',
      description:
        'Open dynamic registration, no initial access token. Redirect URIs must be http loopback addresses; anything else (https included) is refused with invalid_redirect_uri.',
      json: RegistrationRequest,
      responses: guarded(
        {
          '201': { description: 'The registered client', schema: RegistrationResponse },
          '400': { description: 'invalid_redirect_uri or invalid_client_metadata', schema: OAuthErrorBody },
        },
        { limited: true, body: true },
      ),
    },
  },
  // RFC 7592's read of a registered client, with its registration access token (not advertised).
  { path: `${OAUTH_ROUTES.registration}/:clientId`, kind: 'oauth', methods: READ, cors: false },
  {
    path: OAUTH_ROUTES.authorization,
    kind: 'oauth',
    // A browser redirect (GET), docs/contract.md.
    methods: READ,
    cors: false,
    // Every request that starts a flow stores an interaction: limited per address.
    rateLimit: 'authorization',
    docs: {
      tag: 'oauth',
      operationId: 'oauth.authorize',
      summary: 'Authorization endpoint (browser)',
      description:
        'Open in the user’s browser. After sign-in and consent the browser is redirected to redirect_uri with code, state and iss (RFC 9207); a refusal redirects with error=access_denied.',
      query: z.object({
        response_type: z.literal('code'),
        client_id: z.string(),
        redirect_uri: z.string(),
        scope: z
          .string()
          .optional()
          .describe('Space-separated scopes; without it, the baseline school:read account:read'),
        code_challenge: z.string().describe('BASE64URL(SHA-256(code_verifier))'),
        code_challenge_method: z.literal('S256'),
        state: z.string().optional().describe('Recommended: returned unchanged'),
        resource: z.string().optional().describe('RFC 8707: the API origin, to bind the token to this API'),
      }),
      responses: {
        '303': { description: 'Redirect to the login/consent pages or back to redirect_uri' },
        '400': {
          description:
            'An error page for the user (text/html) when the request cannot be sent back to the client: unknown client, a redirect_uri it did not register (RFC 6749 §4.1.2.1)',
          contentType: 'text/html',
        },
        '405': {
          description:
            'An error page (text/html): the authorization endpoint takes GET; Allow lists the methods',
          contentType: 'text/html',
          headers: ['Allow'],
        },
        '429': {
          description: 'An error page (text/html): too many authorization requests from this address',
          contentType: 'text/html',
          headers: ['Retry-After'],
        },
        '503': {
          description: 'An error page (text/html): the authorization server cannot reach its storage',
          contentType: 'text/html',
        },
      },
    },
  },
  // Where the browser resumes the authorization after login and consent (not limited: not a new flow).
  { path: `${OAUTH_ROUTES.authorization}/:uid`, kind: 'oauth', methods: READ, cors: false },
  {
    path: OAUTH_ROUTES.token,
    kind: 'oauth',
    methods: ['POST'],
    cors: true,
    rateLimit: 'token',
    clientAuthentication: 'client_secret_post_or_none',
    body: FORM,
    shortcut: 'device-polling',
    docs: {
      tag: 'oauth',
      operationId: 'oauth.token',
      summary: 'Token endpoint',
      description:
        'authorization_code (with code_verifier) or refresh_token; where device pairing is on, urn:ietf:params:oauth:grant-type:device_code with device_code (authorization_pending until approved, slow_down when polled faster than every 5 seconds, expired_token after 5 minutes). Public clients send client_id; confidential clients also client_secret (client_secret_post). Refresh tokens of public clients rotate.',
      form: TokenRequest,
      responses: guarded(
        {
          '200': { description: 'Tokens', schema: TokenResponse },
          '400': {
            description:
              'invalid_request, invalid_grant, invalid_scope, invalid_target, unsupported_grant_type; for device pairing authorization_pending, slow_down, access_denied, expired_token',
            schema: OAuthErrorBody,
          },
          '401': { description: 'invalid_client', schema: OAuthErrorBody },
        },
        { limited: true, body: true },
      ),
    },
  },
  {
    path: OAUTH_ROUTES.revocation,
    kind: 'oauth',
    methods: ['POST'],
    cors: true,
    rateLimit: 'revocation',
    clientAuthentication: 'client_secret_post_or_none',
    body: FORM,
    docs: {
      tag: 'oauth',
      operationId: 'oauth.revoke',
      summary: 'Revoke a token (RFC 7009)',
      description:
        'Revokes an access or refresh token of the calling client, and with it the whole grant (every token issued under it). The API refuses a revoked access token on its next use.',
      form: RevocationRequest,
      responses: guarded(
        {
          '200': { description: 'Revoked (or already invalid)' },
          '400': { description: 'invalid_request', schema: OAuthErrorBody },
          '401': { description: 'invalid_client', schema: OAuthErrorBody },
        },
        { limited: true, body: true },
      ),
    },
  },
  {
    path: OAUTH_ROUTES.userinfo,
    kind: 'oauth',
    // GET with a bearer header, docs/contract.md.
    methods: READ,
    cors: true,
    docs: {
      tag: 'oauth',
      operationId: 'oauth.userinfo',
      summary: 'UserInfo (OpenID Connect)',
      description:
        'Profile claims of the signed-in user. Needs an unbound token (obtained without resource) with openid.',
      security: [{ oauth2: ['openid'] }],
      responses: guarded({
        '200': { description: 'Claims', schema: UserInfo },
        '401': { description: 'invalid_token', schema: OAuthErrorBody, headers: ['WWW-Authenticate'] },
      }),
    },
  },
  {
    path: OAUTH_ROUTES.introspection,
    kind: 'oauth',
    methods: ['POST'],
    // Server to server: the resource API's secret must never sit in a browser.
    cors: false,
    rateLimit: 'introspection',
    clientAuthentication: 'client_secret_post',
    body: FORM,
    shortcut: 'direct-introspection',
    docs: {
      tag: 'oauth',
      operationId: 'oauth.introspect',
      summary: 'Introspect a token (RFC 7662)',
      description:
        'For resource servers: authenticate with client_secret_post. A client may introspect only its own tokens; the API’s static client may introspect every token.',
      form: IntrospectionRequest,
      responses: guarded(
        {
          '200': { description: 'Token state', schema: IntrospectionResponse },
          '400': {
            description: 'invalid_request: no token, or more than one client authentication mechanism',
            schema: OAuthErrorBody,
          },
          '401': { description: 'invalid_client', schema: OAuthErrorBody },
        },
        { limited: true, body: true },
      ),
    },
  },
  { path: OAUTH_ROUTES.jwks, kind: 'oauth', methods: READ, cors: true },
  // Device pairing (RFC 8628), served only when DEVICE_PAIRING is not off: the client's request for a
  // code, then the page where a signed-in person enters it and approves (the auth server's own page
  // answers both methods of oidc-provider's route), and oidc-provider's resume route, which no
  // request reaches (the page never starts an interaction).
  {
    path: OAUTH_ROUTES.device_authorization,
    kind: 'oauth',
    methods: ['POST'],
    cors: true,
    rateLimit: 'deviceAuthorization',
    clientAuthentication: 'client_secret_post_or_none',
    body: FORM,
    docs: {
      tag: 'oauth',
      operationId: 'oauth.deviceAuthorization',
      summary: 'Device authorization (RFC 8628), when the operator turned device pairing on',
      description:
        'Advertised as device_authorization_endpoint only when DEVICE_PAIRING is on and then only for the clients it allows, each listing urn:ietf:params:oauth:grant-type:device_code in grant_types. The person enters user_code at verification_uri after signing in; the client polls the token endpoint with grant_type=urn:ietf:params:oauth:grant-type:device_code. Codes live 5 minutes.',
      form: DeviceAuthorizationRequest,
      responses: guarded(
        {
          '200': {
            description: 'A device code and the code the person enters',
            schema: DeviceAuthorizationResponse,
          },
          '400': {
            description:
              'invalid_request (also: the client may not pair devices), invalid_scope, invalid_target',
            schema: OAuthErrorBody,
          },
          '401': { description: 'invalid_client', schema: OAuthErrorBody },
          '404': { description: 'not_found: device pairing is off on this server', schema: OAuthErrorBody },
        },
        { limited: true, body: true },
      ),
    },
  },
  { path: OAUTH_ROUTES.code_verification, kind: 'oauth', methods: [...READ, 'POST'], cors: false },
  { path: `${OAUTH_ROUTES.code_verification}/:uid`, kind: 'oauth', methods: READ, cors: false },
  // RP-initiated logout: the request (GET: oidc-provider takes no POST here), the confirmation form,
  // the page after it.
  { path: OAUTH_ROUTES.end_session, kind: 'oauth', methods: READ, cors: false },
  { path: `${OAUTH_ROUTES.end_session}/confirm`, kind: 'oauth', methods: ['POST'], cors: false },
  { path: `${OAUTH_ROUTES.end_session}/success`, kind: 'oauth', methods: READ, cors: false },
  discovery(
    DISCOVERY_PATHS.protectedResource,
    'resource-api',
    'discovery.protectedResource',
    'Protected Resource Metadata (RFC 9728)',
  ),
  discovery(
    DISCOVERY_PATHS.authorizationServer,
    'oauth',
    'discovery.authorizationServer',
    'Authorization Server Metadata (RFC 8414)',
  ),
  discovery(
    DISCOVERY_PATHS.openidConfiguration,
    'oauth',
    'discovery.openidConfiguration',
    'OpenID Connect Discovery',
  ),
  discovery('/openapi.json', 'resource-api', 'discovery.openapi', 'This OpenAPI document'),
  {
    path: '/auth.md',
    kind: 'resource-api',
    methods: READ,
    cors: true,
    docs: {
      tag: 'discovery',
      operationId: 'discovery.authMd',
      summary: 'How to authenticate (Markdown, for agents and developers)',
      description: 'The authentication walkthrough with curl examples.',
      responses: { '200': { description: 'Markdown', contentType: 'text/markdown' } },
    },
  },
  // The pages (page-routes.ts: the routers are built from the same entries), then the service
  // routes on the auth server's own port.
  ...Object.values(PAGE_ROUTERS).flatMap((spec: PageRouterSpec) =>
    Object.values(spec.routes).map((route): Endpoint => ({
      path: pagePath(spec, route),
      kind: 'page',
      methods: [...(route.read ? READ : []), ...(route.form ? (['POST'] as const) : [])],
      cors: false,
    })),
  ),
  ...Object.values(SERVICE_ROUTES).map((path): Endpoint => ({
    path,
    kind: 'service',
    methods: READ,
    cors: false,
  })),
];

/** The rows of the routes oidc-provider serves behind the auth server's steps. */
export const PROVIDER_ENDPOINTS: readonly Endpoint[] = ENDPOINTS.filter((e) => e.kind === 'oauth');
