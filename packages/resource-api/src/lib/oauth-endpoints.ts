/**
 * The auth server's endpoints (docs/contract.md) and the discovery documents, as data for the OpenAPI
 * document: the same renderer turns these and the registry's operations into paths. The auth server
 * owns their behaviour; this is their description for clients of this origin.
 */
import {
  DISCOVERY_PATHS,
  LOOPBACK_REDIRECT_URI,
  OAUTH_ROUTES,
  REGISTRATION_CAPS,
  introspectionAnswerSchema,
} from '@school/shared';
import { z } from 'zod';
import type { NamedSchema } from './operation.js';

/** One documented endpoint that is not a registry operation. */
export interface DocEndpoint {
  method: 'get' | 'post';
  path: string;
  tag: 'oauth' | 'discovery';
  operationId: string;
  summary: string;
  description: string;
  query?: z.ZodObject;
  form?: NamedSchema;
  json?: NamedSchema;
  /** Scheme names for `security`; absent: no security requirement. */
  security?: Record<string, string[]>[];
  responses: Record<
    string,
    { description: string; schema?: NamedSchema; contentType?: string; headers?: string[] }
  >;
}

const OAuthError: NamedSchema = {
  name: 'OAuthError',
  schema: z.object({
    error: z.string().describe('RFC 6749 error code, e.g. invalid_request, invalid_grant, invalid_client'),
    error_description: z.string().optional(),
  }),
};

const RegistrationRequest: NamedSchema = {
  name: 'ClientRegistrationRequest',
  schema: z.object({
    client_name: z
      .string()
      .min(1)
      .max(REGISTRATION_CAPS.clientName)
      .optional()
      .describe(
        'Display name, shown to the user as self-declared; no control or bidirectional formatting characters',
      ),
    application_type: z
      .enum(['native', 'web'])
      .optional()
      .describe('Registered as "native" either way: loopback clients are native apps'),
    redirect_uris: z
      .array(
        z.string().max(REGISTRATION_CAPS.string).regex(LOOPBACK_REDIRECT_URI, 'must be an http loopback URI'),
      )
      .min(1)
      .max(REGISTRATION_CAPS.redirectUris)
      .describe(
        'Loopback only: http://127.0.0.1:<port>/<path>, http://[::1]:<port>/<path> or http://localhost:<port>/<path>',
      ),
    token_endpoint_auth_method: z
      .enum(['none', 'client_secret_post'])
      .optional()
      .describe('"none" (public client, the default) or "client_secret_post" (confidential)'),
    grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
    response_types: z.array(z.enum(['code'])).optional(),
  }),
};

const RegistrationResponse: NamedSchema = {
  name: 'ClientRegistrationResponse',
  schema: z.looseObject({
    client_id: z.string(),
    client_secret: z.string().optional().describe('Only for client_secret_post clients'),
    client_id_issued_at: z.number().int().optional(),
    redirect_uris: z.array(z.string()),
    token_endpoint_auth_method: z.string(),
  }),
};

const TokenRequest: NamedSchema = {
  name: 'TokenRequest',
  schema: z.object({
    grant_type: z.enum(['authorization_code', 'refresh_token']),
    code: z.string().optional().describe('authorization_code: the code from the redirect'),
    redirect_uri: z
      .string()
      .optional()
      .describe('authorization_code: the same redirect_uri as in the authorization request'),
    code_verifier: z.string().optional().describe('authorization_code: the PKCE verifier (S256)'),
    refresh_token: z.string().optional().describe('refresh_token: the refresh token'),
    client_id: z.string(),
    client_secret: z.string().optional().describe('Confidential clients only (client_secret_post)'),
    resource: z.string().optional().describe('RFC 8707: the API origin, to get a token bound to this API'),
    scope: z.string().optional().describe('refresh_token: narrow the scope (optional)'),
  }),
};

const TokenResponse: NamedSchema = {
  name: 'TokenResponse',
  schema: z.looseObject({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    refresh_token: z.string().optional(),
    id_token: z.string().optional().describe('When openid was granted'),
    scope: z.string(),
  }),
};

const RevocationRequest: NamedSchema = {
  name: 'RevocationRequest',
  schema: z.object({
    token: z
      .string()
      .min(1)
      .describe('An access token or a refresh token (revoking a refresh token ends its grant)'),
    token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
    client_id: z.string(),
    client_secret: z.string().optional(),
  }),
};

const IntrospectionRequest: NamedSchema = {
  name: 'IntrospectionRequest',
  schema: z.object({
    token: z.string().min(1),
    token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
    client_id: z.string(),
    client_secret: z.string(),
  }),
};

const IntrospectionResponse: NamedSchema = {
  name: 'IntrospectionResponse',
  schema: introspectionAnswerSchema,
};

const UserInfo: NamedSchema = {
  name: 'UserInfo',
  schema: z.looseObject({
    sub: z.string(),
    name: z.string().optional(),
    given_name: z.string().optional(),
    family_name: z.string().optional(),
    updated_at: z.number().int().optional(),
    email: z.string().optional(),
    email_verified: z.boolean().optional(),
  }),
};

const Json: NamedSchema = { name: 'JsonDocument', schema: z.looseObject({}) };

/** The auth server's endpoints and the discovery documents of this origin. */
type Responses = DocEndpoint['responses'];

/** What any auth-server JSON endpoint may answer besides its own results: overload and outage. */
function guarded(responses: Responses, opts: { limited?: boolean; body?: boolean } = {}): Responses {
  return {
    ...responses,
    ...(opts.body
      ? {
          '413': {
            description:
              'request_too_large (invalid_client_metadata at registration): the body is over the limit',
            schema: OAuthError,
          },
        }
      : {}),
    ...(opts.limited
      ? {
          '429': {
            description: 'too_many_requests: a rate limit was hit (per client id, else per address)',
            schema: OAuthError,
            headers: ['Retry-After'],
          },
        }
      : {}),
    '503': {
      description: 'temporarily_unavailable: the authorization server cannot reach its storage',
      schema: OAuthError,
      headers: ['Retry-After'],
    },
  };
}

export const OAUTH_ENDPOINTS: DocEndpoint[] = [
  {
    method: 'post',
    path: OAUTH_ROUTES.registration,
    tag: 'oauth',
    operationId: 'oauth.register',
    summary: 'Register a client (RFC 7591)',
    description:
      'Open dynamic registration, no initial access token. Redirect URIs must be http loopback addresses; anything else (https included) is refused with invalid_redirect_uri.',
    json: RegistrationRequest,
    responses: guarded(
      {
        '201': { description: 'The registered client', schema: RegistrationResponse },
        '400': { description: 'invalid_redirect_uri or invalid_client_metadata', schema: OAuthError },
      },
      { limited: true, body: true },
    ),
  },
  {
    method: 'get',
    path: OAUTH_ROUTES.authorization,
    tag: 'oauth',
    operationId: 'oauth.authorize',
    summary: 'Authorization endpoint (browser)',
    description:
      'Open in the user’s browser. After sign-in and consent the browser is redirected to redirect_uri with code, state and iss (RFC 9207); a refusal redirects with error=access_denied.',
    query: z.object({
      response_type: z.literal('code'),
      client_id: z.string(),
      redirect_uri: z.string(),
      scope: z.string().describe('Space-separated scopes'),
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
  {
    method: 'post',
    path: OAUTH_ROUTES.token,
    tag: 'oauth',
    operationId: 'oauth.token',
    summary: 'Token endpoint',
    description:
      'authorization_code (with code_verifier) or refresh_token. Public clients send client_id; confidential clients also client_secret (client_secret_post). Refresh tokens of public clients rotate.',
    form: TokenRequest,
    responses: guarded(
      {
        '200': { description: 'Tokens', schema: TokenResponse },
        '400': {
          description:
            'invalid_request, invalid_grant, invalid_scope, invalid_target, unsupported_grant_type',
          schema: OAuthError,
        },
        '401': { description: 'invalid_client', schema: OAuthError },
      },
      { limited: true, body: true },
    ),
  },
  {
    method: 'post',
    path: OAUTH_ROUTES.revocation,
    tag: 'oauth',
    operationId: 'oauth.revoke',
    summary: 'Revoke a token (RFC 7009)',
    description:
      'Revokes an access or refresh token of the calling client, and with it the whole grant (every token issued under it). The API refuses a revoked access token on its next use.',
    form: RevocationRequest,
    responses: guarded(
      {
        '200': { description: 'Revoked (or already invalid)' },
        '400': { description: 'invalid_request', schema: OAuthError },
        '401': { description: 'invalid_client', schema: OAuthError },
      },
      { limited: true, body: true },
    ),
  },
  {
    method: 'get',
    path: OAUTH_ROUTES.userinfo,
    tag: 'oauth',
    operationId: 'oauth.userinfo',
    summary: 'UserInfo (OpenID Connect)',
    description:
      'Profile claims of the signed-in user. Needs an unbound token (obtained without resource) with openid.',
    security: [{ oauth2: ['openid'] }],
    responses: guarded({
      '200': { description: 'Claims', schema: UserInfo },
      '401': { description: 'invalid_token', schema: OAuthError, headers: ['WWW-Authenticate'] },
    }),
  },
  {
    method: 'post',
    path: OAUTH_ROUTES.introspection,
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
          schema: OAuthError,
        },
        '401': { description: 'invalid_client', schema: OAuthError },
      },
      { limited: true, body: true },
    ),
  },
  ...(
    [
      [
        DISCOVERY_PATHS.protectedResource,
        'discovery.protectedResource',
        'Protected Resource Metadata (RFC 9728)',
      ],
      [
        DISCOVERY_PATHS.authorizationServer,
        'discovery.authorizationServer',
        'Authorization Server Metadata (RFC 8414)',
      ],
      [DISCOVERY_PATHS.openidConfiguration, 'discovery.openidConfiguration', 'OpenID Connect Discovery'],
      ['/openapi.json', 'discovery.openapi', 'This OpenAPI document'],
    ] as const
  ).map(([path, operationId, summary]): DocEndpoint => ({
    method: 'get',
    path,
    tag: 'discovery',
    operationId,
    summary,
    description: summary,
    responses: { '200': { description: 'JSON document', schema: Json } },
  })),
  {
    method: 'get',
    path: '/auth.md',
    tag: 'discovery',
    operationId: 'discovery.authMd',
    summary: 'How to authenticate (Markdown, for agents and developers)',
    description: 'The authentication walkthrough with curl examples.',
    responses: { '200': { description: 'Markdown', contentType: 'text/markdown' } },
  },
];
