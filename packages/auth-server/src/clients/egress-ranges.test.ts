/**
 * The egress-range rule: CIDR read into its network form, ranges wider than a provider's block
 * refused, and addresses matched as what they name (an IPv4-mapped IPv6 address is its IPv4 one).
 */
import { describe, expect, it } from '@jest/globals';
import { egressRange, inEgressRanges } from './egress-ranges.js';

describe('egressRange', () => {
  it('keeps a range in its network form', () => {
    expect(egressRange('198.51.100.77/24')).toBe('198.51.100.0/24');
    expect(egressRange(' 2001:DB8:40::1/48 ')).toBe('2001:db8:40::/48');
  });

  it.each([
    ['198.51.100.0', /CIDR form/],
    ['not-a-range/8', /CIDR form/],
    ['10.0.0.0/8', /wider than an IPv4 \/16/],
    ['0.0.0.0/0', /wider than an IPv4 \/16/],
    ['2001:db8::/16', /wider than an IPv6 \/32/],
    ['::ffff:198.51.100.0/120', /write an IPv4 range as IPv4/],
  ])('refuses %s', (cidr, problem) => {
    const read = egressRange(cidr);
    expect(read).toBeInstanceOf(Error);
    expect((read as Error).message).toMatch(problem);
  });
});

describe('inEgressRanges', () => {
  const ranges = ['198.51.100.0/24', '2001:db8:40::/48'];

  it('matches addresses inside a range, of either family', () => {
    expect(inEgressRanges('198.51.100.9', ranges)).toBe(true);
    expect(inEgressRanges('::ffff:198.51.100.9', ranges)).toBe(true);
    expect(inEgressRanges('2001:db8:40:7::5', ranges)).toBe(true);
  });

  it('matches nothing else', () => {
    expect(inEgressRanges('198.51.101.9', ranges)).toBe(false);
    expect(inEgressRanges('2001:db8:41::5', ranges)).toBe(false);
    expect(inEgressRanges('198.51.100.9', [])).toBe(false);
    expect(inEgressRanges(undefined, ranges)).toBe(false);
    expect(inEgressRanges('not an address', ranges)).toBe(false);
  });
});
