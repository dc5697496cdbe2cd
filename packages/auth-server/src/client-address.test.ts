import { describe, expect, it } from '@jest/globals';
import ipaddr from 'ipaddr.js';
import { addressKey } from './client-address.js';

describe('addressKey', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it maps', () => {
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv4-compatible IPv6 address as the IPv4 address it embeds', () => {
    expect(addressKey('::cb00:7107')).toBe('203.0.113.7');
    expect(addressKey('::203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::1')).toBe('::/64');
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

  it('keys an IPv4 address without a parse exactly as ipaddr.js would', () => {
    const octet = (i: number) => [0, 1, 9, 10, 99, 100, 199, 200, 249, 250, 255][i % 11];
    for (let i = 0; i < 200; i++) {
      const ip = [octet(i), octet(i * 3 + 1), octet(i * 7 + 2), octet(i * 5 + 3)].join('.');
      expect(addressKey(ip)).toBe(ipaddr.process(ip).toString());
    }
  });

  it('reads IPv4 in any other form (leading zeros, hex) as ipaddr.js does, not as it is', () => {
    expect(addressKey('010.0.0.1')).toBe('8.0.0.1');
    expect(addressKey('0x7f.0.0.1')).toBe('127.0.0.1');
    expect(addressKey('1.2.3.04')).toBe('1.2.3.4');
  });

  it('uses anything unparseable as it is', () => {
    expect(addressKey('not-an-address')).toBe('not-an-address');
  });
});
