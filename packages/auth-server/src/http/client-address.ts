/**
 * The key a per-address limit counts a request under.
 *
 * An IPv4 address is one key. An IPv6 address is not: a single customer line or cloud instance is
 * routinely given a whole /64 (2^64 addresses), so counting per full IPv6 address would let one
 * client mint a fresh budget per request. Every per-address limit therefore counts an IPv6 client by
 * its /64 prefix, as Cloudflare, Fastly and most WAFs do. IPv4-mapped IPv6 (`::ffff:1.2.3.4`, what a
 * dual-stack socket reports) is the IPv4 address it maps. Anything that does not parse (it never
 * should: Koa's `ctx.ip` comes from the socket or the one trusted hop) is used as it is.
 */
import ipaddr from 'ipaddr.js';

/** The rate-limit key of a client address: IPv4 as is, IPv6 as its /64 (`2001:db8:0:1::/64`). */
export function addressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const prefix = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${ipaddr.IPv6.parse(`${prefix.map((p) => p.toString(16)).join(':')}::`).toString()}/64`;
}
