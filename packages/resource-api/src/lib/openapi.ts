/**
 * The OpenAPI 3.1 document, generated: every registry operation and every documented row of the
 * endpoint table (`@school/shared` oauth-endpoints.ts) goes through the same renderer, and every schema is its zod schema converted
 * with `z.toJSONSchema` (JSON Schema 2020-12, the dialect of OpenAPI 3.1). Nothing here names an area.
 */
import { ALL_SCOPES, ENDPOINTS, OAUTH_ROUTES, type EndpointDocs } from '@school/shared';
import { z } from 'zod';
import type { ApiConfig } from '../config.js';
import { scopeOf, type AreaModule, type NamedSchema, type Operation } from './operation.js';

type Json = Record<string, unknown>;

const ERROR_SCHEMA = z.object({
  error: z.string().describe('Error code (RFC 6749 shape)'),
  error_description: z.string().describe('Human-readable explanation'),
  required_scopes: z.array(z.string()).optional().describe('403: the scope the operation needs'),
  problems: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .optional()
    .describe('400: every problem of the request'),
  request_id: z.string().optional().describe('500: quote it when reporting the problem'),
});

const STANDARD_RESPONSES: Record<string, { code: string; description: string; headers?: Json }> = {
  '400': { code: 'InvalidRequest', description: 'invalid_request: every problem is listed in `problems`' },
  '401': {
    code: 'InvalidToken',
    description:
      'invalid_token: the token is malformed, unknown, expired, revoked, bound to another resource, or sent with the wrong scheme (a DPoP-bound token as Bearer); invalid_dpop_proof: a DPoP-bound token without one valid, unused DPoP proof for this request. Never sent to requests without an Authorization header.',
    headers: {
      'WWW-Authenticate': {
        description:
          'Bearer error="invalid_token", error_description="...", resource_metadata="<PRM URL>"; with the DPoP scheme or a DPoP-bound token: DPoP error="invalid_token" or "invalid_dpop_proof", ..., algs="ES256 Ed25519 EdDSA"',
        schema: { type: 'string' },
      },
    },
  },
  '403': {
    code: 'Forbidden',
    description:
      'insufficient_scope (a token without the scope; WWW-Authenticate names it) or access_denied (no token and no public view; a Link header points to the protected-resource metadata)',
    headers: {
      'WWW-Authenticate': {
        description:
          'For insufficient_scope: Bearer error="insufficient_scope", scope="...", resource_metadata="...", error_description="..." (a refresh cannot add the scope; authorize again for the held scopes plus this one)',
        schema: { type: 'string' },
      },
      Link: {
        description: 'For access_denied: <PRM URL>; rel="oauth-protected-resource"',
        schema: { type: 'string' },
      },
    },
  },
  '404': {
    code: 'NotFound',
    description: 'not_found: no such item (unknown or malformed id, or not in your view)',
  },
  '409': { code: 'Conflict', description: 'conflict: a unique field is already taken' },
  '413': { code: 'PayloadTooLarge', description: 'request_too_large: the body is over the limit' },
  '415': { code: 'UnsupportedMediaType', description: 'unsupported_media_type: send application/json' },
  '500': { code: 'ServerError', description: 'server_error: unexpected; quote request_id' },
  '503': {
    code: 'TemporarilyUnavailable',
    description:
      'temporarily_unavailable: the authorization server (to check the token) or the database cannot be reached; retry after Retry-After',
    headers: { 'Retry-After': { schema: { type: 'integer' } } },
  },
};

/** Drops the long regular expressions zod adds next to `format` (the format says it). */
function dropFormatPatterns(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(dropFormatPatterns);
  if (typeof node !== 'object' || node === null) return;
  const o = node as Json;
  if (typeof o.format === 'string' && typeof o.pattern === 'string') delete o.pattern;
  Object.values(o).forEach(dropFormatPatterns);
}

/** Converts a zod schema for the document (no `$schema`, input or output side). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  delete out.$schema;
  dropFormatPatterns(out);
  return out;
}

class SchemaBook {
  readonly schemas: Record<string, Json> = {};
  private readonly seen = new Map<string, z.ZodType>();
  ref(named: NamedSchema, io: 'input' | 'output'): Json {
    const known = this.seen.get(named.name);
    if (known && known !== named.schema) throw new Error(`two different schemas named ${named.name}`);
    if (!known) {
      this.seen.set(named.name, named.schema);
      this.schemas[named.name] = jsonSchema(named.schema, io);
    }
    return { $ref: `#/components/schemas/${named.name}` };
  }
}

function queryParameters(query: z.ZodObject | undefined): Json[] {
  if (!query) return [];
  const schema = jsonSchema(query, 'input') as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, s]) => {
    const { description, ...rest } = s;
    return {
      name,
      in: 'query',
      required: schema.required?.includes(name) ?? false,
      description,
      schema: rest,
    };
  });
}

/** The id the document's examples show where they name another item (it names nothing anywhere). */
export const SAMPLE_ID = '65f1a2b3c4d5e6f708192a3b';

/** Examples name other items as `{ref:<area>}` (the contract test fills in real ones); show a sample id. */
function withSampleIds(value: unknown): unknown {
  if (typeof value === 'string') return /^\{ref:\w+\}$/.test(value) ? SAMPLE_ID : value;
  if (Array.isArray(value)) return value.map(withSampleIds);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withSampleIds(v)]));
  return value;
}

function renderOperation(op: Operation, book: SchemaBook): Json {
  const scope = scopeOf(op);
  const parameters: Json[] = [];
  if (op.path.includes('{id}'))
    parameters.push({
      name: 'id',
      in: 'path',
      required: true,
      description: 'Id (24 hexadecimal characters); anything else is 404',
      schema: { type: 'string' },
    });
  parameters.push(...queryParameters(op.query));

  const responses: Json = {};
  const { full, public: pub } = op.response;
  const success: Json = { description: op.response.description };
  if (full || pub) {
    const refs = [full, pub].filter((s): s is NamedSchema => !!s).map((s) => book.ref(s, 'output'));
    // anyOf, not oneOf: an empty list (or a sparse item) is valid in both views.
    success.content = {
      'application/json': { schema: refs.length === 1 ? refs[0] : { anyOf: refs } },
    };
  }
  responses[String(op.response.status)] = success;
  const statuses = new Set([...op.errors.map(String), '401', '403', '500', '503']);
  for (const status of [...statuses].sort())
    responses[status] = { $ref: `#/components/responses/${STANDARD_RESPONSES[status]!.code}` };

  const result: Json = {
    operationId: `${op.area}.${op.action}`,
    tags: [op.area],
    summary: op.summary,
    description: [
      op.description,
      `Needs the scope \`${scope}\`.`,
      pub
        ? 'Without an Authorization header the public view is returned.'
        : 'Anonymous callers get 403 access_denied.',
    ]
      .filter(Boolean)
      .join(' '),
    parameters,
    responses,
    security: pub ? [{ oauth2: [scope] }, {}] : [{ oauth2: [scope] }],
  };
  if (op.body?.kind === 'json') {
    const content: Json = { schema: book.ref(op.body.schema, 'input') };
    if (op.example?.body !== undefined) content.example = withSampleIds(op.example.body);
    // No body at all counts as `{}` (http/body.ts): required only where `{}` is not a valid input.
    const required = !op.body.schema.schema.safeParse({}).success;
    result.requestBody = { required, content: { 'application/json': content } };
  } else if (op.body?.kind === 'raw') {
    result.requestBody = {
      required: true,
      description: op.body.description,
      // Any bytes in any media type are a file (multipart/* alone is refused, 415): no schema to violate.
      content: { '*/*': { schema: {} } },
    };
  }
  return result;
}

function renderEndpoint(e: EndpointDocs, book: SchemaBook): Json {
  const responses: Json = {};
  for (const [status, r] of Object.entries(e.responses)) {
    const out: Json = { description: r.description };
    if (r.schema)
      out.content = { [r.contentType ?? 'application/json']: { schema: book.ref(r.schema, 'output') } };
    else if (r.contentType) out.content = { [r.contentType]: { schema: { type: 'string' } } };
    if (r.headers)
      out.headers = Object.fromEntries(r.headers.map((h) => [h, { schema: { type: 'string' } }]));
    responses[status] = out;
  }
  const result: Json = {
    operationId: e.operationId,
    tags: [e.tag],
    summary: e.summary,
    description: e.description,
    parameters: queryParameters(e.query),
    responses,
    security: e.security ?? [{}],
  };
  if (e.form)
    result.requestBody = {
      required: true,
      content: { 'application/x-www-form-urlencoded': { schema: book.ref(e.form, 'input') } },
    };
  if (e.json)
    result.requestBody = {
      required: true,
      content: { 'application/json': { schema: book.ref(e.json, 'input') } },
    };
  return result;
}

/** Builds the OpenAPI 3.1 document of a deployment. */
export function buildOpenApi(config: Pick<ApiConfig, 'BASE_URL'>, registry: readonly AreaModule[]): Json {
  const book = new SchemaBook();
  const paths: Record<string, Json> = {};
  const add = (path: string, method: string, operation: Json) => {
    paths[path] = { ...(paths[path] ?? {}), [method]: operation };
  };
  for (const e of ENDPOINTS)
    for (const method of e.docs ? e.methods.filter((m) => m !== 'HEAD') : [])
      add(e.path, method.toLowerCase(), renderEndpoint(e.docs!, book));
  for (const area of registry)
    for (const op of area.operations) add(op.path, op.method, renderOperation(op, book));

  const responses = Object.fromEntries(
    Object.values(STANDARD_RESPONSES).map((r) => [
      r.code,
      {
        description: r.description,
        ...(r.headers ? { headers: r.headers } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
  const base = config.BASE_URL;
  return {
    openapi: '3.1.0',
    info: {
      title: 'School platform API',
      version: '1.0.0',
      description: `The online school's resource API and the OAuth 2.0 endpoints that protect it. Requests without a token are served as anonymous; see ${base}/auth.md for the authentication walkthrough.`,
    },
    servers: [{ url: base }],
    externalDocs: { description: 'Authentication walkthrough', url: `${base}/auth.md` },
    tags: [
      { name: 'oauth', description: 'Authorization server endpoints' },
      { name: 'discovery', description: 'Metadata and documentation' },
      ...registry.map((a) => ({ name: a.name, description: a.description })),
    ],
    paths,
    components: {
      schemas: { Error: jsonSchema(ERROR_SCHEMA, 'output'), ...book.schemas },
      responses,
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: `Authorization Code with PKCE (S256). Register first at ${OAUTH_ROUTES.registration}.`,
          flows: {
            authorizationCode: {
              authorizationUrl: `${base}${OAUTH_ROUTES.authorization}`,
              tokenUrl: `${base}${OAUTH_ROUTES.token}`,
              refreshUrl: `${base}${OAUTH_ROUTES.token}`,
              scopes: Object.fromEntries(ALL_SCOPES.map((s) => [s.name, s.description])),
            },
          },
        },
      },
    },
  };
}
