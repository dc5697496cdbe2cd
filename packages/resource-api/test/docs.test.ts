/**
 * The documents for clients: the OpenAPI 3.1 document (validated with a real validator, and checked
 * against the registry operation by operation), the protected-resource metadata, auth.md, and the
 * README tables — all as the running app serves them. A test auth server answers only where the
 * document describes its behaviour (what open registration accepts).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { z } from 'zod';
import { ALL_SCOPES, API_SCOPE_NAMES } from '@school/shared';
import { REGISTRY } from '../src/areas/index.js';
import { loadConfig } from '../src/config.js';
import { areasTable, section } from '../src/docs/tables.js';
import { buildOpenApi } from '../src/lib/openapi.js';
import { scopeOf } from '../src/lib/operation.js';
import { createLogger } from '../src/logger.js';
import { startResourceApi, type RunningResourceApi } from '../src/server.js';
import {
  INTROSPECTOR,
  SERVICES,
  startTestAuthServer,
  type TestAuthServer,
} from '../../../test-support/auth-server.js';
import { call } from '../../../test-support/resource-api.js';

const BASE = 'https://school.example';
let api: RunningResourceApi;
type Doc = {
  paths: Record<
    string,
    Record<string, { operationId: string; security: unknown[]; responses: Record<string, unknown> }>
  >;
  components: {
    schemas: Record<string, unknown>;
    securitySchemes: { oauth2: { flows: { authorizationCode: Record<string, unknown> } } };
  };
};
let doc: Doc;

beforeAll(async () => {
  const config = loadConfig({
    NODE_ENV: 'test',
    BASE_URL: BASE,
    API_PORT: '0',
    MONGODB_URI: `${SERVICES.mongoBase}/docs_${randomBytes(4).toString('hex')}`,
    REDIS_URL: SERVICES.redisUrl,
    REDIS_KEY_PREFIX: `docs:${randomBytes(4).toString('hex')}:`,
    LOG_LEVEL: 'silent',
  });
  api = await startResourceApi(config, createLogger('silent'));
  doc = (await call(api.url, '/openapi.json')).body as Doc;
});
afterAll(async () => {
  await api?.connection.dropDatabase().catch(() => undefined);
  await api?.close();
});

describe('/openapi.json', () => {
  it('is the generated document, and a valid OpenAPI 3.1 document', async () => {
    expect(doc).toEqual(buildOpenApi({ BASE_URL: BASE }, REGISTRY));
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect((doc as unknown as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('describes every registry operation with its scope as the security requirement', () => {
    for (const area of REGISTRY)
      for (const op of area.operations) {
        const operation = doc.paths[op.path]?.[op.method];
        expect(operation?.operationId).toBe(`${op.area}.${op.action}`);
        expect(operation!.security[0]).toEqual({ oauth2: [scopeOf(op)] });
        expect(operation!.security.length).toBe(op.response.public ? 2 : 1);
        expect(Object.keys(operation!.responses)).toEqual(
          expect.arrayContaining([String(op.response.status), '401', '403', '503']),
        );
      }
    const count = Object.values(doc.paths)
      .flatMap((p) => Object.values(p))
      .filter((o) => o.operationId.includes('.') && !/^(oauth|discovery)\./.test(o.operationId)).length;
    expect(count).toBe(REGISTRY.flatMap((a) => a.operations).length);
  });

  it('describes the OAuth endpoints of the contract and the authorization-code flow with every scope', () => {
    for (const [path, method] of [
      ['/api/oauth/register', 'post'],
      ['/api/oauth/token', 'post'],
      ['/api/oauth/revoke', 'post'],
      ['/api/oauth/userinfo', 'get'],
      ['/api/oauth/introspect', 'post'],
      ['/oauth/authorize', 'get'],
    ] as const)
      expect(doc.paths[path]?.[method]).toBeDefined();
    const flow = doc.components.securitySchemes.oauth2.flows.authorizationCode;
    expect(flow).toMatchObject({
      authorizationUrl: `${BASE}/oauth/authorize`,
      tokenUrl: `${BASE}/api/oauth/token`,
      refreshUrl: `${BASE}/api/oauth/token`,
    });
    expect(flow.scopes).toEqual(Object.fromEntries(ALL_SCOPES.map((s) => [s.name, s.description])));
  });

  it('resolves every $ref', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"#\/components\/(schemas|responses)\/[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(100);
    const d = doc as unknown as { components: Record<string, Record<string, unknown>> };
    for (const ref of refs) {
      const [, kind, name] = /#\/components\/(\w+)\/([^"]+)/.exec(ref)!;
      expect(d.components[kind!]![name!]).toBeDefined();
    }
  });
});

describe('/openapi.json on the auth server’s endpoints (a test auth server answers)', () => {
  let auth: TestAuthServer;
  beforeAll(async () => {
    auth = await startTestAuthServer();
  });
  afterAll(() => auth?.stop());

  const post = (path: string, body: string, contentType: string) =>
    fetch(`${auth.issuer}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  const schema = (name: string) =>
    z.fromJSONSchema(doc.components.schemas[name] as z.core.JSONSchema.JSONSchema);

  it('admits exactly the registrations the auth server accepts (redirect URIs, name, application type)', async () => {
    const documented = schema('ClientRegistrationRequest');
    for (const [body, accepted] of [
      [{ redirect_uris: ['http://127.0.0.1:53682/callback'] }, true],
      [{ redirect_uris: ['http://[::1]:8080/cb?from=cli'], client_name: 'CLI' }, true],
      [{ redirect_uris: ['http://localhost:65535'] }, true],
      [{ redirect_uris: [''] }, false],
      [{ redirect_uris: ['https://app.example.com/callback'] }, false],
      [{ redirect_uris: ['http://example.com/cb'] }, false],
      [{ redirect_uris: ['http://127.0.0.1:5000/cb#frag'] }, false],
      [{ redirect_uris: ['http://user:pw@127.0.0.1:5000/cb'] }, false],
      [{ redirect_uris: ['http://localhost:65536/cb'] }, false],
      [{ redirect_uris: ['http://127.0.0.1:53682/callback'], client_name: '' }, false],
      [{ redirect_uris: ['http://127.0.0.1:53682/callback'], application_type: 'web' }, true],
      [{ redirect_uris: ['http://127.0.0.1:53682/callback'], application_type: 'desktop' }, false],
    ] as const) {
      const res = await post('/api/oauth/register', JSON.stringify(body), 'application/json');
      const verdicts = [JSON.stringify(body), res.status, documented.safeParse(body).success];
      expect(verdicts).toEqual([JSON.stringify(body), accepted ? 201 : 400, accepted]);
    }
  });

  it('says that introspection needs a token and answers 400 invalid_request without one', async () => {
    const form = { client_id: INTROSPECTOR.clientId, client_secret: INTROSPECTOR.clientSecret, token: '' };
    const res = await post(
      '/api/oauth/introspect',
      new URLSearchParams(form).toString(),
      'application/x-www-form-urlencoded',
    );
    expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([400, 'invalid_request']);
    expect(Object.keys(doc.paths['/api/oauth/introspect']?.post?.responses ?? {})).toContain('400');
    expect(schema('IntrospectionRequest').safeParse(form).success).toBe(false);
  });
});

describe('/.well-known/oauth-protected-resource', () => {
  it('names BASE_URL as resource and authorization server, and only the baseline scopes', async () => {
    const res = await call(api.url, '/.well-known/oauth-protected-resource');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      resource: BASE,
      authorization_servers: [BASE],
      scopes_supported: ['school:read', 'account:read'],
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: ['ES256', 'Ed25519', 'EdDSA'],
      dpop_bound_access_tokens_required: false,
      resource_name: expect.any(String),
      resource_documentation: `${BASE}/auth.md`,
    });
    expect(API_SCOPE_NAMES).toHaveLength(35);
  });
});

describe('/auth.md', () => {
  it('walks through the flow with this deployment’s URLs and says what is not supported', async () => {
    const res = await call(api.url, '/auth.md');
    expect(res.headers.get('content-type')).toMatch(/^text\/markdown/);
    const md = res.text;
    for (const expected of [
      `${BASE}/.well-known/oauth-protected-resource`,
      `${BASE}/api/oauth/register`,
      `${BASE}/oauth/authorize?response_type=code`,
      'code_challenge_method=S256',
      'grant_type=authorization_code',
      'grant_type=refresh_token',
      `${BASE}/api/oauth/revoke`,
      `resource=${BASE}`,
      'invalid_redirect_uri',
      'resource_metadata=',
      'insufficient_scope',
      'access_denied',
      'rel="oauth-protected-resource"',
      'agent_auth',
      'ID-JAG',
      'service_auth',
      'no claim step',
      'temporarily_unavailable',
    ])
      expect(md).toContain(expected);
    for (const scope of API_SCOPE_NAMES) expect(md).toContain(`\`${scope}\``);
  });

  it('tells a client refused for a scope that a refresh cannot add it, and what to do instead', async () => {
    const md = (await call(api.url, '/auth.md')).text.replace(/\s+/g, ' ');
    for (const expected of [
      'On `403 insufficient_scope` **do not refresh**: a refresh cannot add a scope',
      'Start a new authorization request (authorization code with PKCE) asking for the union of the scopes you hold and the one named in the challenge',
      'error_description="..."',
    ])
      expect(md).toContain(expected);
  });

  it('says when device pairing may be used and what its polling answers mean', async () => {
    const md = (await call(api.url, '/auth.md')).text.replace(/\s+/g, ' ');
    for (const expected of [
      '## Agents without a browser: device pairing (only where the school turned it on)',
      '**only if** the authorization server metadata lists `device_authorization_endpoint`',
      'urn:ietf:params:oauth:grant-type:device_code',
      '`authorization_pending`',
      '`slow_down`',
      '`expired_token`',
      '**type** the code',
    ])
      expect(md).toContain(expected);
  });

  it('says how to use DPoP and when a replaced refresh token is still answered', async () => {
    const md = (await call(api.url, '/auth.md')).text.replace(/\s+/g, ' ');
    for (const expected of [
      '## DPoP (optional)',
      'Authorization: DPoP <access token>',
      'invalid_dpop_proof',
      'algs="ES256 Ed25519 EdDSA"',
      'within 10 minutes of its rotation',
      "the grant's current refresh token and a fresh access token",
      'a DPoP proof of its key',
      'the network address of the grant',
      'from another address within 30 seconds of that rotation',
      'a token a generation older from another address',
    ])
      expect(md).toContain(expected);
    expect(md).not.toContain('5 seconds');
  });
});

describe('the README', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

  it('lists every area with its operations and scopes, as the registry says', () => {
    expect(section(readme, 'areas-table')).toBe(areasTable(REGISTRY));
  });

  it('points to the one table of its environment variables', () => {
    expect(section(readme, 'env-table')).toBeUndefined();
    expect(readme).toContain('docs/configuration.md#resource-api');
  });
});
