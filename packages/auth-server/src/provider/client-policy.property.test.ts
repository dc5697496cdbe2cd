/**
 * Properties of the redirect-URI policy over generated input: whatever a client sends, only `http`
 * URIs on the three loopback hosts pass, and the check never throws.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { loopbackRedirectProblem } from './client-policy.js';

const loopbackHost = fc.constantFrom('127.0.0.1', 'localhost', '[::1]');
const pathSegment = fc.stringMatching(/^[A-Za-z0-9._~-]{0,12}$/);

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

  it('refuses https even on loopback hosts', () => {
    fc.assert(
      fc.property(loopbackHost, fc.integer({ min: 1, max: 65535 }), (host, port) => {
        expect(loopbackRedirectProblem(`https://${host}:${port}/cb`)).toMatch(/not a loopback URI/);
      }),
    );
  });
});
