/**
 * A hosted client's published egress ranges (`school-auth clients set-egress`): the address blocks its
 * provider's cloud sends requests from. The refresh-token reuse window (provider/refresh-extension/)
 * counts two addresses inside them as one installation.
 *
 * A range is written as CIDR (`198.51.100.0/24`, `2001:db8:40::/48`) and kept in its network form. One
 * wider than an IPv4 /16 or an IPv6 /32 is refused: no provider publishes such a block as its own, and
 * a range that wide would make strangers one installation. Addresses are compared as what they name
 * (ip-address.ts): an IPv4-mapped IPv6 address is its IPv4 address.
 */
import ipaddr from 'ipaddr.js';
import { embeddedAddress } from '../ip-address.js';

/** The widest range accepted, per family (prefix length). */
export const WIDEST_PREFIX = { ipv4: 16, ipv6: 32 } as const;

/** `cidr` in its network form (`10.1.2.0/24`), or an Error saying why it is not a usable range. */
export function egressRange(cidr: string): string | Error {
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    parsed = ipaddr.parseCIDR(cidr.trim());
  } catch {
    return new Error(
      `${cidr} is not an address range in CIDR form (e.g. 198.51.100.0/24 or 2001:db8:40::/48)`,
    );
  }
  const [address, bits] = parsed;
  const kind = address.kind();
  if (kind === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress())
    return new Error(`${cidr}: write an IPv4 range as IPv4`);
  if (bits < WIDEST_PREFIX[kind])
    return new Error(
      `${cidr} is wider than an ${kind === 'ipv4' ? 'IPv4 /16' : 'IPv6 /32'}: list the provider's own ranges`,
    );
  const network =
    kind === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(cidr.trim())
      : ipaddr.IPv6.networkAddressFromCIDR(cidr.trim());
  return `${network.toString()}/${bits}`;
}

/** Whether `ip` (a client address as Koa reports it) is inside one of `ranges` (network forms). */
export function inEgressRanges(ip: string | undefined, ranges: readonly string[]): boolean {
  if (!ip || !ranges.length || !ipaddr.isValid(ip)) return false;
  const address = embeddedAddress(ip);
  return ranges.some((range) => {
    const [network, bits] = ipaddr.parseCIDR(range);
    return network.kind() === address.kind() && address.match(network, bits);
  });
}
