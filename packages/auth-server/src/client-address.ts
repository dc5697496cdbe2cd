/**
 * The key a per-address limit counts a request under.
 *
 * An IPv4 address is one key. An IPv6 address is not: a single customer line or cloud instance is
 * routinely given a whole /64 (2^64 addresses), so counting per full IPv6 address would let one
 * client mint a fresh budget per request. Every per-address limit therefore counts an IPv6 client by
 * its /64 prefix, as Cloudflare, Fastly and most WAFs do. IPv4-mapped IPv6 (`::ffff:1.2.3.4`, what a
 * dual-stack socket reports) and IPv4-compatible IPv6 (`::1.2.3.4`) are the IPv4 address they carry. Anything that does not parse (it never
 * should: Koa's `ctx.ip` comes from the socket or the one trusted hop) is used as it is. An address
 * already in dotted-quad form (what the socket reports for IPv4) is its own key without a parse: this
 * runs on every rate-limited request.
 */
import ipaddr from 'ipaddr.js';
import { embeddedAddress } from './ip-address.js';

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
/** IPv4 as `ipaddr.js` prints it: four decimal octets, no leading zeros (which it reads otherwise). */
const DOTTED_QUAD = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/** The rate-limit key of a client address: IPv4 as is, IPv6 as its /64 (`2001:db8:0:1::/64`). */
export function addressKey(ip: string): string {
  if (DOTTED_QUAD.test(ip)) return ip;
  if (!ipaddr.isValid(ip)) return ip;
  const address = embeddedAddress(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const prefix = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${ipaddr.IPv6.parse(`${prefix.map((p) => p.toString(16)).join(':')}::`).toString()}/64`;
}
