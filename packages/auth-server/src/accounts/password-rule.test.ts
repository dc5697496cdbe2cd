import { describe, expect, it } from '@jest/globals';
import {
  GENERATED_LENGTH,
  generatePassword,
  passwordProblem,
  UNAMBIGUOUS_ALPHABET,
} from './password-rule.js';

const LOOK_ALIKES = ['0', 'O', 'o', '1', 'l', 'I', 'i', '_'];

describe('generated passwords', () => {
  const many = Array.from({ length: 2000 }, generatePassword);

  it('hold no character a reader could take for another', () => {
    for (const c of LOOK_ALIKES) expect(UNAMBIGUOUS_ALPHABET).not.toContain(c);
    for (const p of many) {
      expect(p).toMatch(/^[2-9a-zA-Z]{5}(-[2-9a-zA-Z]{5})*$/);
      for (const c of LOOK_ALIKES) expect(p).not.toContain(c);
    }
  });

  it('keep at least 144 random bits, drawn from the whole alphabet', () => {
    expect(new Set(UNAMBIGUOUS_ALPHABET).size).toBe(UNAMBIGUOUS_ALPHABET.length);
    expect(GENERATED_LENGTH * Math.log2(UNAMBIGUOUS_ALPHABET.length)).toBeGreaterThanOrEqual(144);
    for (const p of many) expect(p.replace(/-/g, '')).toHaveLength(GENERATED_LENGTH);
    expect(new Set(many.join('').replace(/-/g, ''))).toEqual(new Set(UNAMBIGUOUS_ALPHABET));
    expect(new Set(many).size).toBe(many.length);
  });

  it('pass the one password rule', () => {
    for (const p of many.slice(0, 50)) expect(passwordProblem(p)).toBeUndefined();
  });
});
