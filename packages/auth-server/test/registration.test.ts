/**
 * Open dynamic registration (RFC 7591) at POST /api/oauth/register against the real server: what it
 * refuses (docs/decisions.md: only loopback redirect URIs; only `none` and `client_secret_post`; only the
 * code flow) and what it accepts and echoes.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { authServerForFile } from '../../../test-support/auth-server.js';
import { expectOAuthError, postJson, REDIRECT, register } from './oauth-http.js';

let endpoint: string;

const auth = authServerForFile({ RATE_LIMIT_REGISTRATION: '1000' });
beforeAll(() => {
  endpoint = `${auth.issuer}/api/oauth/register`;
});

describe('POST /api/oauth/register refuses redirect URIs that are not loopback', () => {
  it.each([
    ['an https redirect URI', ['https://app.example.com/callback']],
    ['a non-loopback http redirect URI on a domain name', ['http://example.com/cb']],
    ['a non-loopback http redirect URI on a private-network address', ['http://192.168.1.2/cb']],
    ['a list mixing a loopback and an https redirect URI', [REDIRECT, 'https://app.example.com/cb']],
    ['a list mixing a loopback and a non-loopback http redirect URI', [REDIRECT, 'http://example.com/cb']],
    ['a loopback redirect URI with a fragment', ['http://127.0.0.1:5000/cb#frag']],
    ['a loopback redirect URI carrying credentials', ['http://user:pw@127.0.0.1:5000/cb']],
    ['a custom-scheme redirect URI', ['com.example.app:/callback']],
  ])('refuses %s with 400 invalid_redirect_uri', async (_what, redirectUris) => {
    expectOAuthError(await register(auth, { redirect_uris: redirectUris }), 400, 'invalid_redirect_uri');
  });

  it('refuses a post_logout_redirect_uri that is not loopback (sign-out would send the browser there)', async () => {
    const res = await register(auth, {
      redirect_uris: [REDIRECT],
      post_logout_redirect_uris: ['https://phish.example/signed-out'],
    });
    expectOAuthError(res, 400, 'invalid_client_metadata');
  });

  it('refuses a registration without redirect_uris with 400 invalid_redirect_uri', async () => {
    expectOAuthError(await register(auth, { client_name: 'No callback' }), 400, 'invalid_redirect_uri');
  });

  it.each([
    ['no redirect_uris', {}],
    ['an empty redirect_uris', { redirect_uris: [] }],
  ])(
    'refuses %s with 400 invalid_redirect_uri also when the client asks for no grant types',
    async (_what, metadata) => {
      const res = await register(auth, { ...metadata, grant_types: [], response_types: [] });
      expectOAuthError(res, 400, 'invalid_redirect_uri');
    },
  );
});

describe('POST /api/oauth/register accepts loopback hosts only as typed canonically', () => {
  it.each([
    ['a shortened IPv4 address', 'http://127.1/cb'],
    ['a decimal IPv4 address', 'http://2130706433/cb'],
    ['a hexadecimal IPv4 address', 'http://0x7f000001/cb'],
    ['an octal IPv4 address', 'http://0177.0.0.1/cb'],
    ['full-width digits', 'http://１２７.０.０.１/cb'],
    ['no slashes after the scheme', 'http:127.0.0.1/cb'],
    ['an upper-case scheme and host', 'HTTP://LOCALHOST/cb'],
    ['a trailing dot', 'http://localhost./cb'],
    ['a percent-encoded host', 'http://local%68ost/cb'],
    ['a backslash', 'http:\\\\127.0.0.1\\cb'],
    ['a long-form IPv6 loopback', 'http://[0:0:0:0:0:0:0:1]/cb'],
    ['a port with a leading zero', 'http://127.0.0.1:0080/cb'],
    ['port zero', 'http://127.0.0.1:0/cb'],
    ['an empty port', 'http://127.0.0.1:/cb'],
    ['a space in the path', 'http://127.0.0.1/c b'],
    ['a malformed percent-escape', 'http://127.0.0.1/c%zz'],
  ])('refuses %s (%s) with 400 invalid_redirect_uri', async (_what, uri) => {
    expectOAuthError(await register(auth, { redirect_uris: [uri] }), 400, 'invalid_redirect_uri');
  });

  it.each([
    'http://127.0.0.1/cb',
    'http://127.0.0.1:65535/a/b?x=1&y=%20',
    'http://[::1]:8080/callback',
    'http://localhost/callback',
  ])('accepts the canonical %s', async (uri) => {
    const res = await register(auth, { redirect_uris: [uri] });
    expect(res.status).toBe(201);
    expect((res.body as { redirect_uris: string[] }).redirect_uris).toEqual([uri]);
  });
});

describe('POST /api/oauth/register caps what it stores and refuses undisplayable names', () => {
  it.each([
    ['a client_name over 100 characters', { client_name: 'a'.repeat(101) }],
    ['11 redirect URIs', { redirect_uris: Array.from({ length: 11 }, (_, i) => `${REDIRECT}${i}`) }],
    ['a redirect URI over 2,000 characters', { redirect_uris: [`${REDIRECT}/${'a'.repeat(2000)}`] }],
    ['a client_uri over 2,000 characters', { client_uri: `https://app.example/${'a'.repeat(2000)}` }],
    ['11 contacts', { contacts: Array.from({ length: 11 }, (_, i) => `a${i}@school.test`) }],
    ['a NUL in the name', { client_name: 'Good\u0000App' }],
    ['a right-to-left override in the name', { client_name: 'Trusted \u202eppA' }],
    ['a bidi isolate in the name', { client_name: 'A\u2066B\u2069' }],
    ['a line break in the name', { client_name: 'Line\nBreak' }],
    ['an escape sequence in the name', { client_name: '\u001b[31mRed' }],
    ['a C1 control in the name', { client_name: 'A\u0085B' }],
    ['a right-to-left mark in a contact', { contacts: ['it\u200f@school.test'] }],
    ['a zero-width space in the name', { client_name: 'School\u200bConsole' }],
    ['a zero-width joiner in the name', { client_name: 'School\u200dConsole' }],
    ['a word joiner in the name', { client_name: 'School\u2060Console' }],
    ['a byte-order mark in the name', { client_name: '\ufeffSchool Console' }],
    ['a soft hyphen in the name', { client_name: 'School Con\u00adsole' }],
    ['a tag character in the name', { client_name: 'School Console\u{e0041}' }],
    ['a lone surrogate in the name', { client_name: 'School \ud800Console' }],
    ['a run of combining marks in the name', { client_name: `School C${'\u0301'.repeat(4)}onsole` }],
    ['a private-use character in the name', { client_name: 'School \ue000Console' }],
    ['an unassigned code point in the name', { client_name: 'School \u0378Console' }],
    ['a Hangul filler in the name', { client_name: 'School\u3164Console' }],
    ['a line separator in the name', { client_name: 'School\u2028Console' }],
  ])('refuses %s with 400 invalid_client_metadata or invalid_redirect_uri', async (_what, metadata) => {
    const res = await register(auth, { redirect_uris: [REDIRECT], ...metadata });
    expect(res.status).toBe(400);
    const body = res.body as { error: string; error_description: string };
    expect(['invalid_client_metadata', 'invalid_redirect_uri']).toContain(body.error);
    expect(body.error_description).toMatch(/at most|must not contain/);
  });

  it('refuses a body over 16 KB with 413 in the RFC 6749 shape, before parsing it', async () => {
    const res = await register(auth, {
      redirect_uris: [REDIRECT],
      client_name: 'x',
      software_statement: 'a'.repeat(17_000),
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: 'invalid_client_metadata',
      error_description: expect.stringContaining('16384 bytes'),
    });
  });

  it('accepts names at the cap and in any script', async () => {
    for (const name of ['a'.repeat(100), 'École Über App 日本語 مرحبا', 'Cafe\u0301 Việt हिन्दी']) {
      const res = await register(auth, { redirect_uris: [REDIRECT], client_name: name });
      expect(res.status).toBe(201);
      expect((res.body as { client_name: string }).client_name).toBe(name);
    }
  });
});

describe('POST /api/oauth/register refuses other bad metadata with invalid_client_metadata', () => {
  it.each([
    ['token_endpoint_auth_method client_secret_basic', { token_endpoint_auth_method: 'client_secret_basic' }],
    ['token_endpoint_auth_method private_key_jwt', { token_endpoint_auth_method: 'private_key_jwt' }],
    [
      'token_endpoint_auth_method private_key_jwt with a jwks_uri',
      { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://example.com/jwks' },
    ],
    ['token_endpoint_auth_method client_secret_jwt', { token_endpoint_auth_method: 'client_secret_jwt' }],
    ['grant_types with client_credentials', { grant_types: ['authorization_code', 'client_credentials'] }],
    ['grant_types with implicit', { grant_types: ['implicit'] }],
    [
      'grant_types with urn:ietf:params:oauth:grant-type:jwt-bearer',
      { grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:jwt-bearer'] },
    ],
    [
      'grant_types with urn:ietf:params:oauth:grant-type:token-exchange',
      { grant_types: ['urn:ietf:params:oauth:grant-type:token-exchange'] },
    ],
    ['grant_types with password', { grant_types: ['password'] }],
    ['response_types ["token"]', { response_types: ['token'] }],
    ['response_types ["code id_token"]', { response_types: ['code id_token'] }],
    ['an application_type other than native or web', { application_type: 'desktop' }],
    ['the reserved client_role property', { client_role: 'introspector' }],
    ['the reserved client_role property set to integration', { client_role: 'integration' }],
  ])('refuses %s with 400 invalid_client_metadata', async (_what, metadata) => {
    const res = await register(auth, { redirect_uris: [REDIRECT], ...metadata });
    expectOAuthError(res, 400, 'invalid_client_metadata');
  });

  it('refuses a malformed JSON body with 400 invalid_client_metadata', async () => {
    expectOAuthError(
      await postJson(endpoint, `{"redirect_uris": ["${REDIRECT}"`),
      400,
      'invalid_client_metadata',
    );
  });

  it('refuses a form-encoded body with 400 invalid_client_metadata', async () => {
    const res = await postJson(endpoint, `redirect_uris=${encodeURIComponent(REDIRECT)}`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expectOAuthError(res, 400, 'invalid_client_metadata');
  });

  it('refuses a JSON document sent as text/plain with 400 invalid_client_metadata', async () => {
    const res = await postJson(endpoint, { redirect_uris: [REDIRECT] }, { 'content-type': 'text/plain' });
    expectOAuthError(res, 400, 'invalid_client_metadata');
  });

  it('answers a malformed body with JSON even when the request prefers HTML', async () => {
    const res = await postJson(endpoint, '{', { accept: 'text/html' });
    expectOAuthError(res, 400, 'invalid_client_metadata');
  });

  it('stores no client for a refused registration', async () => {
    const storedClients = async () =>
      (await auth.running.redis.keys(`${auth.config.REDIS_KEY_PREFIX}Client:*`)).length;
    const before = await storedClients();
    await register(auth, { redirect_uris: ['https://app.example.com/cb'] });
    await register(auth, { redirect_uris: [REDIRECT], client_role: 'introspector' });
    await register(auth, { redirect_uris: [REDIRECT], grant_types: ['client_credentials'] });
    expect(await storedClients()).toBe(before);
    await register(auth, { redirect_uris: [REDIRECT] });
    expect(await storedClients()).toBe(before + 1); // the count does see a registration
  });
});

describe('POST /api/oauth/register accepts loopback clients', () => {
  it('answers 201 with the metadata echoed and no client_secret for a public client', async () => {
    const res = await register(auth, {
      client_name: 'Echo CLI',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({
      client_id: expect.any(String),
      client_name: 'Echo CLI',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      application_type: 'native',
    });
    expect(res.body).not.toHaveProperty('client_secret');
    expect(res.body).not.toHaveProperty('client_secret_expires_at');
    expect(res.body).not.toHaveProperty('registration_access_token');
  });

  it('issues no client_secret when token_endpoint_auth_method is omitted, and defaults it to none', async () => {
    const res = await register(auth, { redirect_uris: [REDIRECT] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ token_endpoint_auth_method: 'none' });
    expect(res.body).not.toHaveProperty('client_secret');
    expect(res.body).not.toHaveProperty('client_secret_expires_at');
  });

  it('registers a loopback client as application_type native even when it says web', async () => {
    const res = await register(auth, { redirect_uris: [REDIRECT], application_type: 'web' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ application_type: 'native' });
  });

  it('issues client_secret and client_secret_expires_at to a client_secret_post client', async () => {
    const res = await register(auth, {
      client_name: 'Desktop app',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      client_id: expect.any(String),
      client_secret: expect.stringMatching(/^.{32,}$/),
      client_secret_expires_at: expect.any(Number),
      token_endpoint_auth_method: 'client_secret_post',
      redirect_uris: [REDIRECT],
    });
  });

  it('accepts http://localhost:PORT/cb and http://[::1]:PORT/cb redirect URIs', async () => {
    const uris = ['http://localhost:8123/cb', 'http://[::1]:8124/cb', 'http://127.0.0.1/cb'];
    const res = await register(auth, { redirect_uris: uris });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ redirect_uris: uris, application_type: 'native' });
  });

  it('gives every registration its own client_id, one a command line takes as an argument', async () => {
    const [a, b] = await Promise.all([
      register(auth, { redirect_uris: [REDIRECT] }),
      register(auth, { redirect_uris: [REDIRECT] }),
    ]);
    expect(a.body?.client_id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{21}$/);
    expect(a.body?.client_id).not.toBe(b.body?.client_id);
  });
});
