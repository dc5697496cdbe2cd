/**
 * Which addresses an outbound fetch may connect to: public unicast only. Everything RFC 6890 and its
 * successors set apart (loopback, private, link-local, CGNAT, multicast, documentation, benchmarking,
 * 6to4/Teredo relays, NAT64, IPv4-mapped forms of any of these, ...) is special-use, as ipaddr.js
 * classifies it: any range other than `unicast` is refused. IPv4-mapped and IPv4-compatible IPv6
 * forms are judged as the IPv4 address they embed (ip-address.ts): ipaddr.js alone rates `::7f00:1`
 * as unicast.
 */
import ipaddr from 'ipaddr.js';
import { embeddedAddress } from '../ip-address.js';

/** Why an outbound connection to `address` is refused, or `undefined` when it is a public unicast one. */
export function specialUseProblem(address: string | undefined, allowLoopback = false): string | undefined {
  if (!address || !ipaddr.isValid(address)) return `connected to an unparseable address (${address})`;
  const parsed = embeddedAddress(address);
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && allowLoopback) return undefined;
  return `${parsed.toString()} is a special-use address (${range})`;
}
