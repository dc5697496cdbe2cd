/**
 * What oidc-internals.ts takes from oidc-provider's internals is still there, in the shape it uses:
 * the installed oidc-provider is the pinned version, a real provider keeps its grant handlers in a
 * Map by grant type, and the DPoP helpers are functions of the arity called. A new oidc-provider
 * fails here first, by name, rather than somewhere in the refresh or DPoP suites.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from '@jest/globals';
import Provider from 'oidc-provider';
import validateDpop, { checkDpopReplay } from 'oidc-provider/lib/helpers/validate_dpop.js';
import { grantHandlers } from './oidc-internals.js';

const require = createRequire(import.meta.url);
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

  it('check and record DPoP proofs with the helpers called', () => {
    expect(typeof validateDpop).toBe('function');
    expect(validateDpop.length).toBe(3); // (provider, ctx, accessToken)
    expect(typeof checkDpopReplay).toBe('function');
    expect(checkDpopReplay.length).toBe(4); // (provider, ctx, proof, clientId, ErrorClass = InvalidGrant)
  });
});
