import { describe, expect, it } from '@jest/globals';
import { loopbackRedirectProblem } from './client-policy.js';

describe('loopbackRedirectProblem', () => {
  it.each([
    'http://127.0.0.1:5173/callback',
    'http://127.0.0.1/cb',
    'http://localhost:8765/',
    'http://[::1]:9000/oauth/cb?x=1',
  ])('accepts the loopback redirect URI %s', (uri) => expect(loopbackRedirectProblem(uri)).toBeUndefined());

  it.each([
    ['https://127.0.0.1:5173/cb', /not a loopback URI/],
    ['https://app.example/cb', /registered integration/],
    ['http://example.com/cb', /not a loopback URI/],
    ['http://127.0.0.2/cb', /not a loopback URI/],
    ['http://127.0.0.1.example.com/cb', /not a loopback URI/],
    ['http://user:pw@127.0.0.1/cb', /credentials/],
    ['http://127.0.0.1/cb#frag', /fragment/],
    ['com.example.app:/cb', /not a loopback URI/],
    ['not a uri', /not an absolute URI/],
  ])('refuses %s', (uri, why) => expect(loopbackRedirectProblem(uri)).toMatch(why));

  it('refuses values that are not strings', () => {
    expect(loopbackRedirectProblem(42)).toMatch(/strings/);
  });
});
