/**
 * Properties of the JSON nesting measure the body reader refuses deep documents with: on any JSON
 * document it equals the real depth of the parsed value, brackets inside strings and escapes
 * notwithstanding, so the limit can neither be dodged nor hit by a legitimate body.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { jsonDepth } from './body.js';

function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === 'object')
    return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ' ', '\u00e9') });
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }),
    tricky,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('jsonDepth (properties)', () => {
  it('is the nesting depth of the parsed document', () => {
    fc.assert(
      fc.property(json, fc.constantFrom(undefined, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(jsonDepth(Buffer.from(text, 'utf8'))).toBe(depthOf(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('counts a deep document in full', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), (n) => {
        expect(jsonDepth(Buffer.from('['.repeat(n) + ']'.repeat(n)))).toBe(n);
      }),
      { numRuns: 50 },
    );
  });
});
