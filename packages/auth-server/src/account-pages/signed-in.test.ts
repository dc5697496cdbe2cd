/**
 * Where the account pages' sign-in goes on to: the account page it was started from, never anywhere
 * else, whatever the `state` that comes back says (anyone can write a link to `…/signed-in`).
 */
import { describe, expect, it } from '@jest/globals';
import { afterSignIn, signInUrl } from './signed-in.js';

const BASE = 'http://127.0.0.1:8080';
/** A `state` naming `page` as the sign-in's return, as the pages write it. */
const stateFor = (page: string) => `~${Buffer.from(page).toString('base64url')}.r4nd0m`;
/** The state the sign-in request of a page at `path` carries. */
const stateOfRequestFrom = (path: string) =>
  new URL(signInUrl(BASE, { page: path }), BASE).searchParams.get('state')!;

describe('the return after signing in to the account pages', () => {
  it('goes back to the account page asked for, with its query', () => {
    for (const page of [
      '/oauth/account/clients',
      '/oauth/account/account',
      '/oauth/account/activity?type=login',
    ])
      expect(afterSignIn(stateOfRequestFrom(page), BASE)).toBe(page);
    expect(afterSignIn('device.r4nd0m', BASE)).toBe('/oauth/device');
    expect(afterSignIn('r4nd0m', BASE)).toBe('/oauth/account/apps');
  });

  it('goes to Connected apps for any target that is not an account page of this origin', () => {
    const hostile = [
      '//evil.example',
      '//evil.example/oauth/account/apps',
      'https://evil.example/oauth/account/apps',
      'http://127.0.0.1:8080/oauth/account/clients', // absolute, even our own origin: only paths
      '/\\evil.example',
      '/oauth/account/\\evil.example',
      '/oauth/account//evil.example',
      '/oauth/account/%2F%2Fevil.example',
      '/%2F%2Fevil.example',
      '/%5Cevil.example',
      '/oauth/account/../../evil',
      '/oauth/account/%2e%2e/%2e%2e/evil',
      '/oauth/account/apps#@evil.example',
      '/oauth/account/apps?x=1\\@evil.example',
      '/oauth/account/apps\r\nLocation: //evil.example',
      '/oauth/account/apps\t',
      '/oauth/account/signed-in',
      '/oauth/account',
      '/oauth/accountx/apps',
      '/oauth/authorize',
      'javascript:alert(1)',
      `/oauth/account/${'a'.repeat(600)}`,
    ];
    for (const target of hostile) {
      expect([target, afterSignIn(stateFor(target), BASE)]).toEqual([target, '/oauth/account/apps']);
      // Nor does the page's own sign-in request carry it.
      expect(stateOfRequestFrom(target).startsWith('~')).toBe(false);
    }
    for (const state of ['~%2F%2Fevil.example.x', '~Ly9ldmlsLmV4YW1wbGU.x', '~!!!.x', '~.x', '~'])
      expect(afterSignIn(state, BASE)).toBe('/oauth/account/apps');
  });
});
