/**
 * Properties of the Authorization header parser over generated input: `Bearer` in any case, one or
 * more spaces and one b64token (RFC 6750 §2.1) give exactly that token; anything else is refused with
 * a reason, and nothing ever throws.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_TOKEN_LENGTH, parseAuthorization } from './authorization-header.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/';
const b64token = fc
  .tuple(
    fc.string({ unit: fc.constantFrom(...B64), minLength: 1, maxLength: 80 }),
    fc.string({ unit: fc.constant('='), maxLength: 2 }),
  )
  .map(([body, pad]) => body + pad);
const bearerInAnyCase = fc
  .array(fc.boolean(), { minLength: 6, maxLength: 6 })
  .map((upper) => [...'bearer'].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
const spaces = fc.integer({ min: 1, max: 3 }).map((n) => ' '.repeat(n));
const GRAMMAR = new RegExp(`^(bearer|dpop) +[A-Za-z0-9\\-._~+/]+=*$`, 'i');

describe('parseAuthorization (properties)', () => {
  it('reads the token of every well-formed Bearer header', () => {
    fc.assert(
      fc.property(bearerInAnyCase, spaces, b64token, (scheme, gap, token) => {
        expect(parseAuthorization(`${scheme}${gap}${token}`)).toEqual({ ok: true, token, scheme: 'Bearer' });
      }),
    );
  });

  it('reads the token of every well-formed DPoP header (RFC 9449 §7.1)', () => {
    fc.assert(
      fc.property(fc.constantFrom('DPoP', 'dpop', 'DPOP'), spaces, b64token, (scheme, gap, token) => {
        expect(parseAuthorization(`${scheme}${gap}${token}`)).toEqual({ ok: true, token, scheme: 'DPoP' });
      }),
    );
  });

  it('never throws, and accepts only what the RFC 6750 grammar allows', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc
            .tuple(bearerInAnyCase, spaces, fc.string({ unit: 'binary', maxLength: 100 }))
            .map((p) => p.join('')),
        ),
        (value) => {
          const parsed = parseAuthorization(value);
          if (parsed.ok) {
            expect(value).toMatch(GRAMMAR);
            expect(value.endsWith(parsed.token)).toBe(true);
            expect(parsed.token.length).toBeLessThanOrEqual(MAX_TOKEN_LENGTH);
          } else {
            expect(parsed.reason).toEqual(expect.any(String));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('refuses every other scheme', () => {
    fc.assert(
      fc.property(
        fc
          .stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,10}$/)
          .filter((s) => !['bearer', 'dpop'].includes(s.toLowerCase())),
        b64token,
        (scheme, token) => {
          expect(parseAuthorization(`${scheme} ${token}`).ok).toBe(false);
        },
      ),
    );
  });

  it('refuses a token with any character outside b64token, or a second token', () => {
    fc.assert(
      fc.property(
        b64token,
        fc
          .string({ unit: 'binary', minLength: 1, maxLength: 3 })
          .filter((s) => /[^A-Za-z0-9\-._~+/=]/.test(s)),
        b64token,
        (before, junk, after) => {
          expect(parseAuthorization(`Bearer ${before}${junk}${after}`).ok).toBe(false);
        },
      ),
    );
  });

  it('refuses a token longer than the bound, and a header without a token', () => {
    fc.assert(
      fc.property(fc.integer({ min: MAX_TOKEN_LENGTH + 1, max: MAX_TOKEN_LENGTH * 4 }), (length) => {
        expect(parseAuthorization(`Bearer ${'a'.repeat(length)}`).ok).toBe(false);
      }),
      { numRuns: 20 },
    );
    for (const bare of ['Bearer', 'bearer ', 'Bearer    ', ''])
      expect(parseAuthorization(bare).ok).toBe(false);
  });
});
