/**
 * Properties of audience matching over generated input: an unbound token (no `aud`) is accepted; a
 * bound one only when some `aud` value is this API's resource identifier, with or without one trailing
 * slash, its scheme and host in any ASCII case. Look-alikes (path, port, host suffix, doubled slash,
 * Unicode case folds) never pass.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { audienceAccepts } from './audience.js';

const resource = fc
  .tuple(
    fc.constantFrom('http', 'https'),
    fc.oneof(fc.constantFrom('127.0.0.1', 'localhost', '[::1]'), fc.domain()),
    fc.option(fc.integer({ min: 1, max: 65535 })),
  )
  .map(([scheme, host, port]) => `${scheme}://${host}${port === null ? '' : `:${port}`}`);
const lookalike = fc.constantFrom(
  (r: string) => r.replace(/k/g, '\u212A'), // the Kelvin sign lower-cases to k in JavaScript
  (r: string) => `${r}/API`,
  (r: string) => `${r}//`,
  (r: string) => `${r}/api`,
  (r: string) => `${r}.evil.example`,
  (r: string) => `${r}:1`,
  (r: string) => r.slice(0, -1),
  (r: string) => ` ${r}`,
  (r: string) => r.replace('://', ':///'),
);

describe('audienceAccepts (properties)', () => {
  it('accepts an unbound token anywhere', () => {
    fc.assert(fc.property(resource, (r) => expect(audienceAccepts(undefined, r)).toBe(true)));
  });

  it('accepts a single aud exactly when it is the resource, with or without one trailing slash', () => {
    fc.assert(
      fc.property(
        resource,
        fc.oneof(
          fc.string({ unit: 'binary' }),
          resource,
          resource.map((r) => `${r}/`),
        ),
        (r, aud) => {
          const ascii = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
          expect(audienceAccepts(aud, r)).toBe(ascii(aud) === ascii(r) || ascii(aud) === ascii(`${r}/`));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('accepts a list exactly when one of its values would be accepted alone (never an empty list)', () => {
    fc.assert(
      fc.property(resource, fc.array(fc.oneof(resource, fc.string()), { maxLength: 5 }), (r, list) => {
        expect(audienceAccepts(list, r)).toBe(list.some((a) => audienceAccepts(a, r)));
      }),
    );
    expect(audienceAccepts([], 'http://127.0.0.1:8080')).toBe(false);
  });

  it('accepts the resource with its scheme and host in upper case', () => {
    fc.assert(fc.property(resource, (r) => expect(audienceAccepts(r.toUpperCase(), r)).toBe(true)));
  });

  it('refuses every look-alike of the resource', () => {
    fc.assert(
      fc.property(resource, lookalike, (r, change) => {
        const other = change(r);
        fc.pre(other !== r && other !== `${r}/`);
        expect(audienceAccepts(other, r)).toBe(false);
        expect(audienceAccepts([other], r)).toBe(false);
      }),
    );
  });
});
