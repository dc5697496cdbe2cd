/**
 * The registry-driven contract: for every operation of every area, as the registry declares it,
 * against the real app, the real auth server and the seeded school —
 * - anonymously: the public view (200, validated against the public schema) or 403 access_denied
 *   with `required_scopes` and the PRM `Link`, never 401 and never a `WWW-Authenticate`;
 * - with a token lacking the scope: 403 insufficient_scope with the challenge naming the scope;
 * - with a token holding exactly the scope: the declared status, a body that parses with the
 *   operation's (strict) output schema, and the declared headers.
 * Operations of an area run in life-cycle order (list, create, get, update, ..., delete), so writes
 * act on what the test created and never on seeded data other tests read.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { AREAS } from '@school/shared';
import { REGISTRY } from '../src/areas/index.js';
import { scopeOf, type Operation } from '../src/lib/operation.js';
import { seedSchool } from '../src/seed/seed-school.js';
import { authAndApiForFile, call, type Answer } from '../../../test-support/resource-api.js';
import { TokenSource } from '../../../test-support/tokens.js';

let tokens: TokenSource;
let prm: string;

const { auth, api } = authAndApiForFile();
beforeAll(async () => {
  await seedSchool(api.running.connection);
  tokens = new TokenSource(auth);
  prm = `${auth.issuer}/.well-known/oauth-protected-resource`;
});

const RANK: Record<string, number> = { list: 0, create: 1, upload: 1, get: 2, update: 3, delete: 9 };
const rank = (op: Operation) => RANK[op.action] ?? 5;

/** A token with exactly `scope`, bound to the API. */
const tokenFor = (scope: string) => tokens.token([scope], { resource: auth.issuer });

/** A scope the operation does not accept: the other access level of the area, else another area's. */
function lackingScope(op: Operation): string {
  const area = AREAS.find((a) => a.name === op.area)!;
  const other = (area.access as readonly string[]).find((a) => a !== op.access);
  return other ? `${op.area}:${other}` : op.area === 'pages' ? 'posts:read' : 'pages:read';
}

/** Ids per area: what the test created, else the first item listed; public ids from anonymous lists. */
const created = new Map<string, string>();
const listed = new Map<string, string>();
const publicListed = new Map<string, string>();

async function firstId(area: string): Promise<string> {
  if (!listed.has(area)) {
    const res = await call(api.url, `/api/v1/${area}?limit=1`, { token: await tokenFor(`${area}:read`) });
    listed.set(area, (res.body as { data: { id: string }[] }).data[0]!.id);
  }
  return listed.get(area)!;
}

/** Replaces `{ref:<area>}` placeholders in an example body with real ids. */
async function resolve(value: unknown): Promise<unknown> {
  if (typeof value === 'string') {
    const m = /^\{ref:(\w+)\}$/.exec(value);
    return m ? firstId(m[1]!) : value;
  }
  if (Array.isArray(value)) return Promise.all(value.map(resolve));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await resolve(v)])),
    );
  return value;
}

async function send(op: Operation, init: { token?: string; id?: string }): Promise<Answer> {
  const id = init.id ?? created.get(op.area) ?? listed.get(op.area) ?? '000000000000000000000000';
  const query = new URLSearchParams(op.example?.query ?? {}).toString();
  const path = op.path.replace('{id}', id) + (query ? `?${query}` : '');
  if (op.example?.raw)
    return call(api.url, path, {
      method: op.method.toUpperCase(),
      token: init.token,
      headers: { 'content-type': op.example.raw.contentType },
      body: op.example.raw.data,
    });
  const json = op.body?.kind === 'json' ? await resolve(op.example?.body ?? {}) : undefined;
  return call(api.url, path, { method: op.method.toUpperCase(), token: init.token, json });
}

describe('the registry', () => {
  it('has the twenty areas of the contract, in its order', () => {
    expect(REGISTRY.map((a) => a.name)).toEqual(AREAS.map((a) => a.name));
  });

  it.each(AREAS.map((area) => ({ name: area.name, area })))(
    'gives $name exactly the operations its scopes allow',
    ({ area }) => {
      const ops = REGISTRY.find((a) => a.name === area.name)!.operations;
      expect(new Set(ops.map((op) => op.access))).toEqual(new Set(area.access));
      for (const op of ops) {
        expect(op.path.startsWith(`/api/v1/${area.name}`)).toBe(true);
        expect(op.method === 'get').toBe(op.access === 'read');
      }
    },
  );
});

for (const area of REGISTRY) {
  const ops = [...area.operations].sort((a, b) => rank(a) - rank(b));
  describe(`${area.name}`, () => {
    for (const op of ops) {
      const scope = scopeOf(op);
      const name = `${op.method.toUpperCase()} ${op.path}`;

      it(`${name} anonymously: ${op.response.public ? 'the public view' : '403 access_denied with a Link to the PRM'}`, async () => {
        const id = op.path.includes('{id}') && op.response.public ? publicListed.get(area.name) : undefined;
        const res = await send(op, { id });
        expect(res.headers.get('www-authenticate')).toBeNull();
        if (op.response.public) {
          expect(res.status).toBe(200);
          const body = op.response.public.schema.parse(res.body) as { data?: { id: string }[] };
          if (op.action === 'list') {
            expect(body.data!.length).toBeGreaterThan(0);
            publicListed.set(area.name, body.data![0]!.id);
          }
          expect(res.headers.get('cache-control')).toMatch(/public/);
        } else {
          expect(res.status).toBe(403);
          expect(res.body).toEqual({
            error: 'access_denied',
            error_description: expect.any(String),
            required_scopes: [scope],
          });
          expect(res.headers.get('link')).toBe(`<${prm}>; rel="oauth-protected-resource"`);
        }
      });

      it(`${name} with a token lacking ${scope}: 403 insufficient_scope`, async () => {
        const lacking = lackingScope(op);
        const res = await send(op, { token: await tokenFor(lacking) });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({
          error: 'insufficient_scope',
          error_description: expect.any(String),
          required_scopes: [scope],
        });
        const description = (res.body as { error_description: string }).error_description;
        expect(description).toContain('A refresh cannot add a scope');
        expect(description.endsWith(` and ${scope} (${lacking} ${scope})`)).toBe(true);
        expect(description).not.toContain('scope=');
        expect(res.headers.get('www-authenticate')).toBe(
          `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${prm}", error_description="${description}"`,
        );
      });

      it(`${name} with an unknown token: 401 invalid_token whose challenge names ${scope}`, async () => {
        const res = await send(op, { token: `unknown-${scope}-token` });
        expect(res.status).toBe(401);
        const challenge = res.headers.get('www-authenticate') ?? '';
        expect(challenge).toMatch(
          /^Bearer error="invalid_token", error_description="[^"]+", scope="[^"]+", resource/,
        );
        expect(challenge).toContain(`scope="${scope}", resource_metadata="${prm}"`);
      });

      it(`${name} with ${scope}: ${op.response.status} and the declared shape`, async () => {
        if (op.path.includes('{id}') && !created.has(area.name)) await firstId(area.name);
        const res = await send(op, { token: await tokenFor(scope) });
        if (res.status !== op.response.status) throw new Error(`${res.status}: ${res.text}`);
        expect(res.headers.get('cache-control')).toBe('no-store');
        if (op.response.status === 204) {
          expect(res.text).toBe('');
          created.delete(area.name);
          return;
        }
        const body = op.response.full!.schema.parse(res.body) as { id?: string; data?: { id: string }[] };
        if (op.action === 'list' && body.data?.length) listed.set(area.name, body.data[0]!.id);
        if (op.response.status === 201) {
          created.set(area.name, body.id!);
          if (op.method === 'post' && area.name !== 'storage')
            expect(res.headers.get('location')).toBe(`${auth.issuer}${op.path}/${body.id}`);
        }
      });
    }
  });
}
