import { describe, expect, it } from '@jest/globals';
import { minutesText, plural } from './plural.js';

describe('counts in words', () => {
  it('puts the noun in the number it takes', () => {
    expect([0, 1, 2].map((n) => plural(n, 'account'))).toEqual(['0 accounts', '1 account', '2 accounts']);
    expect(plural(3, 'address', 'addresses')).toBe('3 addresses');
  });

  it('says a wait in whole minutes, at least one', () => {
    expect([1, 60, 61, 300].map(minutesText)).toEqual(['1 minute', '1 minute', '2 minutes', '5 minutes']);
  });
});
