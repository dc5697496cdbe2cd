import { describe, expect, it } from '@jest/globals';
import { isCimdClientId } from './client-id-url.js';

describe('isCimdClientId', () => {
  it.each([
    'https://app.example.com/oauth/client.json',
    'https://app.example.com/client',
    'https://app.example.com:8443/c?v=1',
  ])('takes %s as a metadata document URL', (id) => {
    expect(isCimdClientId(id)).toBe(true);
  });

  it.each([
    ['a stored client id', 'dcr-3f9a0b'],
    ['http', 'http://app.example.com/client.json'],
    ['no path', 'https://app.example.com'],
    ['the root path', 'https://app.example.com/'],
    ['a fragment', 'https://app.example.com/client.json#x'],
    ['credentials', 'https://user:pw@app.example.com/client.json'],
    ['a dot segment', 'https://app.example.com/a/../client.json'],
    ['an encoded dot segment', 'https://app.example.com/a/%2e%2e/client.json'],
    ['an upper-case host (not as a parser writes it)', 'https://App.example.com/client.json'],
    ['the default port written out', 'https://app.example.com:443/client.json'],
    ['a space', 'https://app.example.com/cli ent.json'],
    ['an upper-case scheme', 'HTTPS://app.example.com/client.json'],
  ])('does not take %s', (_what, id) => {
    expect(isCimdClientId(id)).toBe(false);
  });
});
