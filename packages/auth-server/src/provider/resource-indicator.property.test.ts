/**
 * Properties of resource-indicator matching: only the API's identifier, with or without one trailing
 * slash and with its scheme and host in any (ASCII) case, is accepted; every other string — other
 * paths, hosts, schemes, ports, case in the path, Unicode look-alikes, query or fragment — is refused.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { loadConfig } from '../config.js';
import { isApiResource } from './configuration.js';

const config = loadConfig({ NODE_ENV: 'test', BASE_URL: 'https://school.example' });

describe('isApiResource (properties)', () => {
  it('accepts exactly BASE_URL and BASE_URL/', () => {
    expect(isApiResource(config, 'https://school.example')).toBe(true);
    expect(isApiResource(config, 'https://school.example/')).toBe(true);
  });

  it('accepts the identifier with its scheme and host in any case (RFC 3986 §6.2.2.1)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 22, maxLength: 22 }), fc.boolean(), (upper, slash) => {
        const indicator = [...'https://school.example']
          .map((c, i) => (upper[i] ? c.toUpperCase() : c))
          .join('');
        expect(isApiResource(config, slash ? `${indicator}/` : indicator)).toBe(true);
      }),
    );
  });

  it('refuses every other string', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })),
        (indicator) => {
          fc.pre(!/^https:\/\/school\.example\/?$/i.test(indicator));
          expect(isApiResource(config, indicator)).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses near misses of the identifier', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          'http://school.example',
          'https://school.example/API',
          'https://\u212Aschool.example',
          'https://school.examp\u0130e',
          'https://school.example:443',
          'https://school.example//',
          'https://school.example/api',
          'https://school.example?x=1',
          'https://school.example#f',
          ' https://school.example',
          'https://school.example.evil',
        ),
        (indicator) => expect(isApiResource(config, indicator)).toBe(false),
      ),
    );
  });
});
