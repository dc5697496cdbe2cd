import { describe, expect, it } from '@jest/globals';
import { clientIdHost, coveringDomains, domainCovers, reviewDomain } from './app-domain.js';

/** Whether the rule typed as `domain` covers the metadata-document client `clientId`. */
function covers(domain: string, clientId: string): boolean {
  const rule = reviewDomain(domain);
  if (rule instanceof Error) throw rule;
  const host = clientIdHost(clientId);
  if (host === undefined) throw new Error(`${clientId} is not a metadata-document client id`);
  const byLookup = coveringDomains(host).includes(rule);
  expect(domainCovers(rule, host)).toBe(byLookup); // the stored lookup and the matcher agree
  return byLookup;
}

describe('the domain rule of app reviews', () => {
  it('covers the host itself and its subdomains', () => {
    expect(covers('example.com', 'https://example.com/client.json')).toBe(true);
    expect(covers('example.com', 'https://mcp.example.com/client.json')).toBe(true);
    expect(covers('example.com', 'https://a.b.example.com/c/client.json')).toBe(true);
  });

  it('never covers a look-alike: a longer label, a suffix, another parent', () => {
    expect(covers('example.com', 'https://evil-example.com/client.json')).toBe(false);
    expect(covers('example.com', 'https://notexample.com/client.json')).toBe(false);
    expect(covers('example.com', 'https://example.com.evil/client.json')).toBe(false);
    expect(covers('example.com', 'https://example.community/client.json')).toBe(false);
    expect(covers('mcp.example.com', 'https://example.com/client.json')).toBe(false);
    expect(covers('example.com', 'https://evil.com/example.com/client.json')).toBe(false);
    expect(covers('example.com', 'https://evil.com/c?x=.example.com')).toBe(false);
  });

  it('reads the domain typed in any case, with a final dot, and a host with a final dot', () => {
    expect(reviewDomain('  Example.COM. ')).toBe('example.com');
    expect(covers('EXAMPLE.com', 'https://mcp.example.com/client.json')).toBe(true);
    expect(covers('example.com.', 'https://example.com./client.json')).toBe(true);
    expect(covers('example.com', 'https://mcp.example.com./client.json')).toBe(true);
  });

  it('compares internationalized names in punycode, never a look-alike script', () => {
    expect(reviewDomain('bücher.example')).toBe('xn--bcher-kva.example');
    expect(covers('bücher.example', 'https://app.xn--bcher-kva.example/client.json')).toBe(true);
    expect(covers('xn--bcher-kva.example', 'https://xn--bcher-kva.example/client.json')).toBe(true);
    // Cyrillic "е" in "exаmple": another name entirely.
    expect(covers('example.com', 'https://xn--exmple-4nf.com/client.json')).toBe(false);
    expect(covers('еxample.com', 'https://example.com/client.json')).toBe(false);
  });

  it('covers every port of its hosts and refuses a domain typed with one', () => {
    expect(covers('example.com', 'https://example.com:8443/client.json')).toBe(true);
    expect(covers('127.0.0.1', 'https://127.0.0.1:4443/client.json')).toBe(true);
    expect(reviewDomain('example.com:443')).toBeInstanceOf(Error);
  });

  it('matches an IP address exactly, never as a suffix', () => {
    expect(covers('0.0.1', 'https://127.0.0.1/client.json')).toBe(false);
    expect(domainCovers('0.0.1', '127.0.0.1')).toBe(false);
    expect(domainCovers('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(coveringDomains('127.0.0.1')).toEqual(['127.0.0.1']);
  });

  it('refuses what is not a domain', () => {
    for (const typed of [
      '',
      ' ',
      'https://example.com',
      'example.com/x',
      '*.example.com',
      'a..b',
      'u@example.com',
    ])
      expect(reviewDomain(typed)).toBeInstanceOf(Error);
    expect(reviewDomain(`${'a'.repeat(63)}.`.repeat(5))).toBeInstanceOf(Error);
  });

  it('gives no host for a client id that is not a metadata document', () => {
    expect(clientIdHost('app-123')).toBeUndefined();
    expect(clientIdHost('http://example.com/client.json')).toBeUndefined();
  });
});
