/**
 * Properties of reading an introspection `scope` over generated input: well-formed scope tokens
 * separated by spaces give exactly that set; a scope is granted only by a token equal to it, byte for
 * byte; malformed tokens grant nothing and nothing is ever invented.
 */
import { describe, expect, it } from '@jest/globals';
import { API_SCOPE_NAMES } from '@school/shared';
import fc from 'fast-check';
import { parseScope } from './scope.js';

const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const scopeChar = fc
  .integer({ min: 0x21, max: 0x7e })
  .filter((c) => c !== 0x22 && c !== 0x5c)
  .map((c) => String.fromCharCode(c));
const scopeToken = fc.oneof(
  fc.constantFrom(...API_SCOPE_NAMES),
  fc.string({ unit: scopeChar, minLength: 1, maxLength: 20 }),
);

describe('parseScope (properties)', () => {
  it('reads exactly the tokens of a well-formed scope string', () => {
    fc.assert(
      fc.property(fc.array(scopeToken, { maxLength: 40 }), (tokens) => {
        expect(parseScope(tokens.join(' '))).toEqual(new Set(tokens));
      }),
    );
  });

  it('never invents a scope: every result is a well-formed token standing alone in the string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (scope) => {
        const words = scope.split(' ');
        for (const token of parseScope(scope)) {
          expect(token).toMatch(SCOPE_TOKEN);
          expect(words).toContain(token);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('grants a scope only to a token equal to it (no prefix, suffix, case or whitespace variants)', () => {
    const variant = fc.oneof(
      fc.constant((s: string) => s.toUpperCase()),
      fc.constant((s: string) => `${s}x`),
      fc.constant((s: string) => s.slice(0, -1)),
      fc.constant((s: string) => `${s}\t`),
      fc.constant((s: string) => `\u00a0${s}`),
      fc.constant((s: string) => s.replace(':', '')),
      fc.constant((s: string) => `"${s}"`),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...API_SCOPE_NAMES),
        variant,
        fc.array(scopeToken),
        (needed, change, others) => {
          const granted = parseScope([...others.filter((o) => o !== needed), change(needed)].join(' '));
          expect(granted.has(needed)).toBe(false);
        },
      ),
    );
  });

  it('grants nothing for an absent or empty scope', () => {
    expect(parseScope(undefined).size).toBe(0);
    expect(parseScope('').size).toBe(0);
    expect(parseScope('   ').size).toBe(0);
  });
});
