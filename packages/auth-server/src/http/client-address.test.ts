import { describe, expect, it } from '@jest/globals';
import { addressKey } from './client-address.js';

describe('addressKey', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it maps', () => {
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts every address of one IPv6 /64 under one key', () => {
    const a = addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd');
    const b = addressKey('2001:0db8:0001:0002::1');
    expect(a).toBe('2001:db8:1:2::/64');
    expect(b).toBe(a);
  });

  it('keeps two different IPv6 /64 prefixes apart', () => {
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
  });

  it('uses anything unparseable as it is', () => {
    expect(addressKey('not-an-address')).toBe('not-an-address');
  });
});
