/**
 * Properties of the redirect-URI policy over generated input: whatever a client sends, only `http`
 * URIs on the three loopback hosts pass, and the check never throws.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { loopbackRedirectProblem } from './client-policy.js';

const loopbackHost = fc.constantFrom('127.0.0.1', 'localhost', '[::1]');
/** A path segment other than `.` and `..`, which URL parsers resolve away and the policy refuses. */
const pathSegment = fc
  .stringMatching(/^[A-Za-z0-9._~-]{0,12}$/)
  .filter((segment) => segment !== '.' && segment !== '..');

describe('loopbackRedirectProblem (properties)', () => {
  it('never throws and always answers undefined or a message, for any string or value', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.webUrl(), fc.anything()),
        (value) => {
          const out = loopbackRedirectProblem(value);
          expect(out === undefined || typeof out === 'string').toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('accepts every http loopback URI with any port and path', () => {
    fc.assert(
      fc.property(
        loopbackHost,
        fc.option(fc.integer({ min: 1, max: 65535 })),
        fc.array(pathSegment, { maxLength: 4 }),
        (host, port, segments) => {
          const uri = `http://${host}${port === null ? '' : `:${port}`}/${segments.join('/')}`;
          expect(loopbackRedirectProblem(uri)).toBeUndefined();
        },
      ),
    );
  });

  it('refuses every URI whose scheme is not http or whose host is not loopback', () => {
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ['http', 'https'] }), (uri) => {
        const url = new URL(uri);
        const loopback =
          url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
        fc.pre(!loopback);
        expect(loopbackRedirectProblem(uri)).toEqual(expect.any(String));
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses every URI with a dot segment in its path, however it is escaped', () => {
    fc.assert(
      fc.property(
        loopbackHost,
        fc.array(pathSegment, { maxLength: 3 }),
        fc.constantFrom('.', '..', '%2e', '%2E%2e', '.%2E'),
        fc.constantFrom('', '/', '/cb', '?x=1'),
        (host, segments, dots, rest) => {
          const uri = `http://${host}/${[...segments, dots].join('/')}${rest}`;
          expect(loopbackRedirectProblem(uri)).toEqual(expect.any(String));
        },
      ),
    );
  });

  it('refuses https even on loopback hosts', () => {
    fc.assert(
      fc.property(loopbackHost, fc.integer({ min: 1, max: 65535 }), (host, port) => {
        expect(loopbackRedirectProblem(`https://${host}:${port}/cb`)).toMatch(/not a loopback URI/);
      }),
    );
  });
});

describe('loopbackRedirectProblem accepts only the canonical spelling (properties)', () => {
  it('accepts only URIs a URL parser writes back unchanged, and every such generated one', () => {
    const pathChar = fc.oneof(
      fc.constantFrom(...'abcXYZ019-._~!$&()*+,;=:@/?'.split('')),
      fc.integer({ min: 0, max: 255 }).map((n) => `%${n.toString(16).toUpperCase().padStart(2, '0')}`),
    );
    const canonical = fc
      .tuple(
        loopbackHost,
        fc.option(fc.integer({ min: 1, max: 65535 })),
        fc.array(pathChar, { maxLength: 20 }),
      )
      .map(([host, port, path]) => `http://${host}${port === null ? '' : `:${port}`}/${path.join('')}`)
      // A `.` or `..` segment before the query (plain or escaped) is not canonical: parsers resolve it.
      .filter((uri) => !/\/(?:\.|%2e){1,2}(?=[/?]|$)/i.test(uri.split('?')[0]!));
    fc.assert(
      fc.property(fc.oneof(canonical, fc.string(), fc.webUrl({ withQueryParameters: true })), (uri) => {
        if (loopbackRedirectProblem(uri) !== undefined) return;
        expect([uri, `${uri}/`]).toContain(new URL(uri).href);
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(canonical, (uri) => {
        expect(loopbackRedirectProblem(uri)).toBeUndefined();
      }),
    );
  });

  it('refuses every other spelling of a loopback host that a URL parser would normalise', () => {
    const spellings = fc.constantFrom(
      '127.1',
      '127.0.1',
      '2130706433',
      '0x7f000001',
      '0x7f.0.0.1',
      '0177.0.0.1',
      '127.000.000.001',
      'LOCALHOST',
      'LocalHost',
      'localhost.',
      '127.0.0.1.',
      '[0:0:0:0:0:0:0:1]',
      '[::0001]',
      '１２７.０.０.１',
      'local%68ost',
    );
    fc.assert(
      fc.property(spellings, fc.option(fc.integer({ min: 1, max: 65535 })), (host, port) => {
        const uri = `http://${host}${port === null ? '' : `:${port}`}/cb`;
        expect(loopbackRedirectProblem(uri)).toEqual(expect.any(String));
      }),
    );
  });
});
