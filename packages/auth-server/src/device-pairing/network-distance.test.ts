import { describe, expect, it } from '@jest/globals';
import { nearness } from './network-distance.js';

describe('nearness of the requesting address to the approver', () => {
  it('is the same address, also when one is written as IPv4-mapped IPv6', () => {
    expect(nearness('192.0.2.10', '192.0.2.10')).toBe('same-address');
    expect(nearness('::ffff:192.0.2.10', '192.0.2.10')).toBe('same-address');
    expect(nearness('2001:db8::1', '2001:db8:0:0::1')).toBe('same-address');
  });

  it('is the same network within an IPv4 /24 or an IPv6 /64', () => {
    expect(nearness('192.0.2.10', '192.0.2.200')).toBe('same-network');
    expect(nearness('2001:db8:1:2::1', '2001:db8:1:2:ffff::9')).toBe('same-network');
  });

  it('is elsewhere across networks or address families', () => {
    expect(nearness('192.0.3.10', '192.0.2.10')).toBe('elsewhere');
    expect(nearness('2001:db8:1:3::1', '2001:db8:1:2::1')).toBe('elsewhere');
    expect(nearness('2001:db8::1', '192.0.2.10')).toBe('elsewhere');
  });

  it('is unknown without a valid requesting address', () => {
    expect(nearness(undefined, '192.0.2.10')).toBe('unknown');
    expect(nearness('not an address', '192.0.2.10')).toBe('unknown');
  });
});
