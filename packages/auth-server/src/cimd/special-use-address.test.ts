import { describe, expect, it } from '@jest/globals';
import { specialUseProblem } from './special-use-address.js';

describe('specialUseProblem', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '::1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '192.0.2.1',
    '198.18.0.1',
    'fe80::1',
    'fc00::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2001:db8::1',
    '2002:a00:1::1',
    'ff02::1',
    // IPv4-compatible (::/96) forms, judged as the IPv4 address they embed
    '::7f00:1',
    '::127.0.0.1',
    '0:0:0:0:0:0:7f00:1',
    '::a00:1',
    '::a9fe:a9fe',
    '::2',
    '::ffff:7f00:1',
  ])('refuses %s', (address) => {
    expect(specialUseProblem(address)).toMatch(/special-use/);
  });

  it.each(['93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '::808:808'])(
    'accepts the public address %s',
    (address) => {
      expect(specialUseProblem(address)).toBeUndefined();
    },
  );

  it('accepts loopback only when told to, and nothing else special', () => {
    expect(specialUseProblem('127.0.0.1', true)).toBeUndefined();
    expect(specialUseProblem('::1', true)).toBeUndefined();
    expect(specialUseProblem('10.0.0.1', true)).toMatch(/private/);
  });

  it('refuses what is not an address at all', () => {
    expect(specialUseProblem(undefined)).toMatch(/unparseable/);
    expect(specialUseProblem('example.com')).toMatch(/unparseable/);
  });
});
