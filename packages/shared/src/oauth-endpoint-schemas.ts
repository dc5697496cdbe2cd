/**
 * The request and response bodies of the authorization server's endpoints, as zod schemas with the
 * names they get under `components.schemas` in the resource API's OpenAPI document. The endpoint
 * table (oauth-endpoints.ts) names them per endpoint; the auth server enforces the rules they state.
 */
import { z } from 'zod';
import { introspectionAnswerSchema } from './introspection.js';
import { LOOPBACK_REDIRECT_URI } from './loopback.js';
import { REGISTRATION_CAPS } from './registration-caps.js';

/** RFC 8628's grant type, the token request of device pairing. */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** A zod schema with the name it gets under `components.schemas` in the OpenAPI document. */
export interface NamedSchema {
  name: string;
  schema: z.ZodType;
}

export const OAuthErrorBody: NamedSchema = {
  name: 'OAuthError',
  schema: z.object({
    error: z.string().describe('RFC 6749 error code, e.g. invalid_request, invalid_grant, invalid_client'),
    error_description: z.string().optional(),
  }),
};

export const RegistrationRequest: NamedSchema = {
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
    dpop_bound_access_tokens: z
      .boolean()
      .optional()
      .describe(
        'RFC 9449 §5.2: true if every token request of this client carries a DPoP proof; one without is then refused with invalid_dpop_proof',
      ),
  }),
};

export const RegistrationResponse: NamedSchema = {
  name: 'ClientRegistrationResponse',
  schema: z.looseObject({
    client_id: z.string(),
    client_secret: z.string().optional().describe('Only for client_secret_post clients'),
    client_id_issued_at: z.number().int().optional(),
    redirect_uris: z.array(z.string()),
    token_endpoint_auth_method: z.string(),
    dpop_bound_access_tokens: z.boolean().optional().describe('As registered (RFC 9449 §5.2)'),
  }),
};

export const TokenRequest: NamedSchema = {
  name: 'TokenRequest',
  schema: z.object({
    grant_type: z
      .enum(['authorization_code', 'refresh_token', DEVICE_CODE_GRANT_TYPE])
      .describe(`${DEVICE_CODE_GRANT_TYPE} only where device pairing is on (RFC 8628)`),
    code: z.string().optional().describe('authorization_code: the code from the redirect'),
    redirect_uri: z
      .string()
      .optional()
      .describe('authorization_code: the same redirect_uri as in the authorization request'),
    code_verifier: z.string().optional().describe('authorization_code: the PKCE verifier (S256)'),
    refresh_token: z.string().optional().describe('refresh_token: the refresh token'),
    device_code: z.string().optional().describe('device_code: the device_code of the device authorization'),
    client_id: z.string(),
    client_secret: z.string().optional().describe('Confidential clients only (client_secret_post)'),
    resource: z.string().optional().describe('RFC 8707: the API origin, to get a token bound to this API'),
    scope: z.string().optional().describe('refresh_token: narrow the scope (optional)'),
  }),
};

export const TokenResponse: NamedSchema = {
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

export const DeviceAuthorizationRequest: NamedSchema = {
  name: 'DeviceAuthorizationRequest',
  schema: z.object({
    client_id: z.string(),
    client_secret: z.string().optional().describe('Confidential clients only (client_secret_post)'),
    scope: z
      .string()
      .optional()
      .describe('Space-separated scopes; without it, the baseline school:read account:read'),
    resource: z.string().optional().describe('RFC 8707: the API origin, to get a token bound to this API'),
  }),
};

export const DeviceAuthorizationResponse: NamedSchema = {
  name: 'DeviceAuthorizationResponse',
  schema: z.looseObject({
    device_code: z.string(),
    user_code: z.string().describe('8 letters of an alphabet without look-alikes, shown as XXXX-XXXX'),
    verification_uri: z.string().describe('The page where the person signs in and types user_code'),
    verification_uri_complete: z
      .string()
      .optional()
      .describe('The same page: it never fills the code in, the person types it'),
    expires_in: z.number().int(),
  }),
};

export const RevocationRequest: NamedSchema = {
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

export const IntrospectionRequest: NamedSchema = {
  name: 'IntrospectionRequest',
  schema: z.object({
    token: z.string().min(1),
    token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
    client_id: z.string(),
    client_secret: z.string(),
    used_scope: z
      .string()
      .optional()
      .describe(
        'From a protected resource allowed to introspect every token: the scope an operation it served with this token needed, shown to the admin on Connected apps (RFC 7662 §2.1 allows more parameters).',
      ),
  }),
};

export const IntrospectionResponse: NamedSchema = {
  name: 'IntrospectionResponse',
  schema: introspectionAnswerSchema,
};

export const UserInfo: NamedSchema = {
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

export const JsonDocument: NamedSchema = { name: 'JsonDocument', schema: z.looseObject({}) };
