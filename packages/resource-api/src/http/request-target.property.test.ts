/**
 * Properties of the request-target check over generated input: a percent-encoded path or query is
 * accepted exactly when the bytes it encodes are valid UTF-8 (the same verdict as Node's isUtf8), and
 * anything a client encodes from a well-formed string passes.
 */
import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { decodesAsUtf8 } from './request-target.js';

const percentEncoded = (bytes: Uint8Array) =>
  [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');

describe('decodesAsUtf8 (properties)', () => {
  it('accepts percent-encoded bytes exactly when they are valid UTF-8', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 40 }),
          fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => new Uint8Array(Buffer.from(s))),
        ),
        (bytes) => {
          expect(decodesAsUtf8(percentEncoded(bytes))).toBe(isUtf8(bytes));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('accepts whatever encodeURIComponent makes of a well-formed string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(decodesAsUtf8(encodeURIComponent(text))).toBe(true);
      }),
    );
  });

  it('refuses a truncated escape', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme-ascii' }),
        fc.constantFrom('%', '%A', '%G1', '%zz'),
        (text, bad) => {
          expect(decodesAsUtf8(encodeURIComponent(text) + bad)).toBe(false);
        },
      ),
    );
  });
});
