/**
 * Properties of resource-indicator matching: only the API's identifier, with or without one trailing
 * slash, is accepted; every other string — other paths, hosts, schemes, ports, case, query or
 * fragment — is refused.
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

  it('refuses every other string', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })),
        (indicator) => {
          fc.pre(indicator !== 'https://school.example' && indicator !== 'https://school.example/');
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
          'https://School.example',
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
