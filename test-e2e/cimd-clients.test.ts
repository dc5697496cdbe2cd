/**
 * The agent clients people use, connecting through their Client ID Metadata Documents as they publish
 * them (test-e2e/fixtures/cimd/: VS Code, claude.ai connectors, Claude Code, ChatGPT, Codex), each
 * served from a local HTTPS host with a test CA the stack trusts through its test-only settings. Every
 * one goes discover → authorize (the admin in Chromium) → token → API → refresh through the edge,
 * though VS Code's and Claude's list grant types and redirect URIs this server does not serve (VS
 * Code's device_code while device pairing is off, test-e2e/device-pairing-clients.test.ts): those
 * are dropped (logged, listed by `school-auth clients cimd`), not the whole document. The hosted
 * connectors' https callbacks are allowed by the operator and land on the local HTTPS host.
 * `school-auth clients check` takes each document as the server would, storing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { pkce } from '../test-support/oauth-flow.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import type { Browser } from 'playwright-core';
import { isLoopbackRedirectUri } from '@school/shared';
import { SERVICES } from '../test-support/auth-server.js';
import type { DocumentServer } from '../test-support/https-documents.js';
import { startDocumentStack, stopDocumentStack } from './support/document-stack.js';
import { approveInBrowser, loopbackListener } from './support/browser.js';
import { schoolAuth, type Stack } from './support/stack.js';

const ROOT = resolve(import.meta.dirname, '..');
const FIXTURES = ['vscode', 'claude-connector', 'claude-code', 'chatgpt', 'codex'] as const;
type Fixture = (typeof FIXTURES)[number];
/** The fixtures whose only redirect URIs are https callbacks of a hosted service. */
const HOSTED: readonly Fixture[] = ['claude-connector', 'chatgpt'];

let stack: Stack;
let browser: Browser;
let docs: DocumentServer;
const redis = new Redis(SERVICES.redisUrl, { lazyConnect: true });

beforeAll(async () => {
  // Roomy host budget: every document of this file is on one host and asked for from one address.
  const env = { CIMD_FETCHES_PER_MINUTE_PER_HOST: '300' };
  ({ docs, stack, browser } = await startDocumentStack(env, { withBrowser: true }));
}, 90_000);
afterAll(async () => {
  redis.disconnect();
  await stopDocumentStack({ docs, stack, browser });
});

/**
 * Fixture `name` with its hosts replaced, under a path prefix of its own, published with
 * `Cache-Control: max-age=900`; returns the document served.
 */
function publishFixture(name: Fixture | Record<string, unknown>, label = 'doc'): Record<string, unknown> {
  const raw =
    typeof name === 'string'
      ? (JSON.parse(
          readFileSync(resolve(import.meta.dirname, 'fixtures/cimd', `${name}.json`), 'utf8'),
        ) as Record<string, unknown>)
      : name;
  const ownHost = new URL(raw.client_id as string).host;
  const prefix = `/${label}-${randomBytes(4).toString('hex')}`;
  const swap = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(swap);
    if (typeof value !== 'string' || !value.startsWith('https://')) return value;
    const url = new URL(value);
    const host = url.host === ownHost ? '127.0.0.1' : 'localhost';
    return `https://${host}:${docs.port}${prefix}${url.pathname}${url.search}`;
  };
  const doc = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, swap(v)]));
  docs.json(new URL(doc.client_id as string).pathname, doc, { 'cache-control': 'max-age=900' });
  return doc;
}

const hostedOf = (doc: Record<string, unknown>) => doc.redirect_uris as string[];

/** What `school-auth clients check` prints (the members this suite reads). */
interface CheckOut {
  outcome: string;
  refused?: string;
  dropped: { member: string; value: string; why: string }[];
  redirect_uris: { usable: string[] };
  token_endpoint_auth_method: unknown;
  cache: unknown;
  client: Record<string, unknown>;
}

/**
 * Runs `school-auth clients check <url>` as an operator would; its exit code and JSON. Not spawnSync:
 * the document server runs in this process and must answer meanwhile.
 */
async function check(url: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['packages/auth-server/dist/cli/main.js', 'clients', 'check', url], {
    cwd: ROOT,
    env: { ...process.env, ...stack.env, LOG_LEVEL: 'silent', ...env },
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const [status] = (await once(child, 'exit')) as [number | null];
  return { status, out: JSON.parse(stdout || '{}') as CheckOut };
}

async function tokenRequest(endpoint: string, form: Record<string, string>) {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

const api = async (token: string) =>
  (await fetch(`${stack.baseUrl}/api/v1/courses`, { headers: { authorization: `Bearer ${token}` } })).status;

/** The admin signs in and allows the authorization at `url` in a fresh Chromium context. */
const approveInChromium = (url: string, landed: Promise<URL>) =>
  // The local HTTPS host's certificate is from the test CA, which this Chromium does not know.
  approveInBrowser(browser, url, { received: landed }, { ignoreHTTPSErrors: true });

/** Where the browser is sent back to for `doc`, and the promise of the URL it lands on. */
async function callbackFor(doc: Record<string, unknown>) {
  const loopback = hostedOf(doc).find(isLoopbackRedirectUri);
  if (loopback) {
    const target = new URL(loopback);
    const listener = await loopbackListener(target.pathname);
    target.port = String(listener.port); // any port at authorization: RFC 8252 §7.3
    return { redirectUri: target.href, landed: listener.received, close: () => listener.close() };
  }
  const redirectUri = hostedOf(doc).find((uri) => new URL(uri).hostname === '127.0.0.1')!;
  const landed = new Promise<URL>((done) =>
    docs.route(new URL(redirectUri).pathname, (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Connected</h1>');
      done(new URL(req.url!, redirectUri));
    }),
  );
  return { redirectUri, landed, close: () => Promise.resolve() };
}

describe('agent clients with the metadata documents they publish, in Chromium through the edge', () => {
  const published = new Map<Fixture, string>();

  it.each(FIXTURES)(
    '%s: discover, authorize, token, API, refresh',
    async (name) => {
      const doc = publishFixture(name, name);
      const clientId = doc.client_id as string;
      published.set(name, clientId);
      if (HOSTED.includes(name)) schoolAuth(stack, ['clients', 'allow-cimd', clientId]);

      const discovery = (await (
        await fetch(`${stack.baseUrl}/.well-known/oauth-authorization-server`)
      ).json()) as {
        authorization_endpoint: string;
        token_endpoint: string;
        client_id_metadata_document_supported?: boolean;
      };
      expect(discovery.client_id_metadata_document_supported).toBe(true);

      const { redirectUri, landed, close } = await callbackFor(doc);
      try {
        const { verifier, challenge } = pkce();
        const state = randomBytes(8).toString('hex');
        const params = new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: redirectUri,
          scope: 'openid courses:read',
          resource: stack.baseUrl,
          state,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        });
        const { consent, callback } = await approveInChromium(
          `${discovery.authorization_endpoint}?${params.toString()}`,
          landed,
        );
        expect(consent).toContain(String(doc.client_name));
        expect(callback.pathname).toBe(new URL(redirectUri).pathname);
        expect(callback.searchParams.get('state')).toBe(state);

        const tokens = await tokenRequest(discovery.token_endpoint, {
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code')!,
          redirect_uri: redirectUri,
          code_verifier: verifier,
          client_id: clientId,
          resource: stack.baseUrl,
        });
        expect(tokens.status).toBe(200);
        expect(await api(tokens.body.access_token!)).toBe(200);

        const refreshed = await tokenRequest(discovery.token_endpoint, {
          grant_type: 'refresh_token',
          refresh_token: tokens.body.refresh_token!,
          client_id: clientId,
          resource: stack.baseUrl,
        });
        expect(refreshed.status).toBe(200);
        expect(refreshed.body.access_token).not.toBe(tokens.body.access_token);
        expect(await api(refreshed.body.access_token!)).toBe(200);
      } finally {
        await close();
      }
    },
    90_000,
  );

  it('shows operators and the log what was dropped from each document', () => {
    const listed = schoolAuth(stack, ['clients', 'cimd']) as unknown as {
      client_id: string;
      dropped?: { member: string; value: string; why: string }[];
    }[];
    const droppedOf = (name: Fixture) =>
      listed.find((c) => c.client_id === published.get(name))?.dropped?.map((d) => `${d.member} ${d.value}`);
    const vscodeRedirect = `https://127.0.0.1:${docs.port}${new URL(
      published.get('vscode')!,
    ).pathname.replace(/\/oauth\/client-metadata\.json$/, '/redirect')}`;
    expect(droppedOf('vscode')).toEqual([
      'grant_types urn:ietf:params:oauth:grant-type:device_code',
      `redirect_uris ${vscodeRedirect}`,
    ]);
    expect(droppedOf('claude-connector')).toEqual([
      'grant_types urn:ietf:params:oauth:grant-type:jwt-bearer',
    ]);
    expect(droppedOf('chatgpt')).toEqual(['token_endpoint_auth_method client_secret_post']);
    expect(droppedOf('claude-code')).toEqual([]);
    expect(droppedOf('codex')).toEqual([]);

    const lines = stack.logs['auth-server']!.flatMap((chunk) => chunk.split('\n'));
    const logged = lines
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as { msg?: string; clientId?: string; dropped?: { value: string }[] }];
        } catch {
          return [];
        }
      })
      .filter((l) => l.msg === 'client metadata document fetched; values it lists were dropped');
    const vscodeLine = logged.find((l) => l.clientId === published.get('vscode'));
    expect(vscodeLine?.dropped?.map((d) => d.value)).toEqual([
      'urn:ietf:params:oauth:grant-type:device_code',
      vscodeRedirect,
    ]);
    expect(logged.find((l) => l.clientId === published.get('claude-code'))).toBeUndefined();
  });

  it('refuses a document without authorization_code, naming why', async () => {
    const doc = publishFixture(
      {
        client_id: 'https://device.example/client.json',
        client_name: 'Device-only',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      },
      'device-only',
    );
    const res = await tokenRequest(`${stack.baseUrl}/api/oauth/token`, {
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: 'http://127.0.0.1/callback',
      code_verifier: 'x'.repeat(43),
      client_id: doc.client_id as string,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client');
    expect(res.body.error_description).toMatch(/grant_types lists no authorization_code/);
  });
});

describe('school-auth clients check', () => {
  const stored = async (url: string) =>
    redis.exists(`${stack.env.REDIS_KEY_PREFIX}Client:${url}`, `${stack.env.REDIS_KEY_PREFIX}cimd:${url}`);

  it('says how each document would be taken, and stores nothing', async () => {
    const expected: Record<Fixture, { outcome: string; dropped: string[] }> = {
      vscode: { outcome: 'accepted', dropped: ['urn:ietf:params:oauth:grant-type:device_code', 'redirect'] },
      'claude-connector': { outcome: 'refused', dropped: [] },
      'claude-code': { outcome: 'accepted', dropped: [] },
      chatgpt: { outcome: 'refused', dropped: [] },
      codex: { outcome: 'accepted', dropped: [] },
    };
    for (const name of FIXTURES) {
      const doc = publishFixture(name, `check-${name}`);
      const url = doc.client_id as string;
      const { status, out } = await check(url);
      expect({ name, outcome: out.outcome, status }).toEqual({
        name,
        outcome: expected[name].outcome,
        status: expected[name].outcome === 'accepted' ? 0 : 1,
      });
      if (out.outcome === 'accepted') {
        expect(out.token_endpoint_auth_method).toEqual({ offered: ['none'], negotiated: 'none' });
        expect(out.cache).toMatchObject({ max_age_header: 900, fresh_seconds: 900 });
        expect(out.redirect_uris.usable).toEqual(hostedOf(doc).filter(isLoopbackRedirectUri));
        expect(out.dropped.map((d) => d.value.replace(/^https:.*\//, ''))).toEqual(expected[name].dropped);
      } else {
        // Only https callbacks, not allowed yet: the check says what the operator would have to do.
        expect(out.refused).toMatch(/^invalid_redirect_uri: .*need an operator to allow its client_id/);
      }
      expect(await stored(url)).toBe(0);
    }
  }, 120_000);

  it('shows an allowed connector its callbacks and the method it negotiates', async () => {
    const doc = publishFixture('chatgpt', 'check-allowed');
    const url = doc.client_id as string;
    schoolAuth(stack, ['clients', 'allow-cimd', url]);
    const { status, out } = await check(url);
    expect(status).toBe(0);
    expect(out).toMatchObject({
      outcome: 'accepted',
      https_redirects_allowed: true,
      redirect_uris: { usable: hostedOf(doc), not_usable: [] },
      token_endpoint_auth_method: { offered: ['client_secret_post', 'none'], negotiated: 'none' },
      client: { client_id: url, token_endpoint_auth_method: 'none', application_type: 'web' },
    });
    expect(out.dropped).toEqual([
      {
        member: 'token_endpoint_auth_method',
        value: 'client_secret_post',
        why: 'negotiated to none, which the document also offers',
      },
    ]);
    expect(out.client).not.toHaveProperty('scope');
    expect(await stored(url)).toBe(0);
  });

  it('names what is missing in a refused document, and fetches under the server’s address rules', async () => {
    const refused = publishFixture(
      {
        client_id: 'https://device.example/client.json',
        client_name: 'Device-only',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
      },
      'check-device-only',
    );
    const answer = await check(refused.client_id as string);
    expect(answer.status).toBe(1);
    expect(answer.out.refused).toMatch(/^invalid_client: .*grant_types lists no authorization_code/);

    // Without the test-only loopback setting, a loopback address is never connected to.
    const before = docs.connections;
    const strict = await check(publishFixture('codex', 'check-strict').client_id as string, {
      CIMD_ALLOW_LOOPBACK: 'false',
    });
    expect(strict.status).toBe(1);
    expect(strict.out.refused).toMatch(/^the fetch failed: .*loopback/);
    expect(docs.connections).toBe(before);
  });
});
