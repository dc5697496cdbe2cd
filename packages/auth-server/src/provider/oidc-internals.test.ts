/**
 * What oidc-internals.ts takes from oidc-provider's internals is still there, in the shape it uses:
 * the installed oidc-provider is the pinned version, and a real provider keeps its grant handlers in
 * a Map by grant type, which is what it runs for a grant. A new oidc-provider fails here first, by
 * name, rather than somewhere in the refresh or DPoP suites.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { describe, expect, it } from '@jest/globals';
import Provider from 'oidc-provider';
import { grantHandlers } from './oidc-internals.js';

const require = createRequire(import.meta.url);
/** POSTs `body` to `provider`'s token endpoint on a loopback port of its own; the answer. */
async function postToken(provider: Provider, body: string): Promise<{ status: number; body: unknown }> {
  const callback = provider.callback();
  const server = createServer((req, res) => void callback(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    return { status: res.status, body: await res.json() };
  } finally {
    server.close();
  }
}

const version = (path: string) => (JSON.parse(readFileSync(path, 'utf8')) as { version?: string }).version;

describe('oidc-provider internals', () => {
  it('are those of the pinned version', () => {
    const pinned = (
      JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        dependencies: Record<string, string>;
      }
    ).dependencies['oidc-provider'];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/); // exact: a range would let the internals move
    expect(version(require.resolve('oidc-provider/package.json'))).toBe(pinned);
  });

  it('keep the grant handlers in a Map by grant type', () => {
    const provider = new Provider('http://127.0.0.1:1', { features: { dPoP: { enabled: true } } });
    const handlers = grantHandlers(provider);
    expect(handlers).toBeInstanceOf(Map);
    for (const grant of ['authorization_code', 'refresh_token'])
      expect({ grant, handler: typeof handlers.get(grant) }).toEqual({ grant, handler: 'function' });
  });

  it('run the handler put in that Map for a grant', async () => {
    const provider = new Provider('http://127.0.0.1:1', {
      clients: [
        {
          client_id: 'c',
          client_secret: 's',
          grant_types: ['refresh_token'],
          response_types: [],
          redirect_uris: [],
        },
      ],
    });
    const handlers = grantHandlers(provider);
    const seen: string[] = [];
    handlers.set('refresh_token', (ctx) => {
      seen.push(String(ctx.oidc.params?.refresh_token));
      ctx.body = { wrapped: true };
      return Promise.resolve();
    });
    const res = await postToken(
      provider,
      'grant_type=refresh_token&refresh_token=abc&client_id=c&client_secret=s',
    );
    expect({ status: res.status, body: res.body, seen }).toEqual({
      status: 200,
      body: { wrapped: true },
      seen: ['abc'],
    });
  });
});
