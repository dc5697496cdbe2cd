/**
 * Properties of `error_description` texts over generated input: whatever a message echoes (paths,
 * keys, values a client sent), what goes out is within RFC 6749 §5.2's character set and bounded.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { InvalidRequestError, NotFoundError, rfc6749Text } from './errors.js';

const RFC6749 = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

describe('error descriptions (properties)', () => {
  it('are always within RFC 6749 §5.2 and at most 1000 characters, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 3000 }), (text) => {
        const out = rfc6749Text(text);
        expect(out).toMatch(RFC6749);
        expect(out.length).toBeLessThanOrEqual(1000);
      }),
      { numRuns: 1000 },
    );
  });

  it('leave an already valid short text unchanged, and are idempotent', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[\x20\x21\x23-\x5b\x5d-\x7e]{0,200}$/), (text) => {
        expect(rfc6749Text(text)).toBe(text);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 1200 }), (text) => {
        expect(rfc6749Text(rfc6749Text(text))).toBe(rfc6749Text(text));
      }),
    );
  });

  it('reach the wire that way from every error, while problems keep the exact text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (path, message) => {
        const body = new InvalidRequestError([{ path, message }]).toBody();
        expect(body.error_description).toMatch(RFC6749);
        expect(body.problems).toEqual([{ path, message }]);
        expect(new NotFoundError(message).toBody().error_description).toMatch(RFC6749);
      }),
    );
  });
});
