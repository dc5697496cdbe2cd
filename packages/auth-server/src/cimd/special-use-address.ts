/**
 * Which addresses an outbound fetch may connect to: public unicast only. Everything RFC 6890 and its
 * successors set apart (loopback, private, link-local, CGNAT, multicast, documentation, benchmarking,
 * 6to4/Teredo relays, NAT64, IPv4-mapped forms of any of these, ...) is special-use, as ipaddr.js
 * classifies it: any range other than `unicast` is refused.
 */
import ipaddr from 'ipaddr.js';

/** Why an outbound connection to `address` is refused, or `undefined` when it is a public unicast one. */
export function specialUseProblem(address: string | undefined, allowLoopback = false): string | undefined {
  if (!address || !ipaddr.isValid(address)) return `connected to an unparseable address (${address})`;
  const parsed = ipaddr.process(address); // ::ffff:10.0.0.1 is judged as 10.0.0.1
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && allowLoopback) return undefined;
  return `${parsed.toString()} is a special-use address (${range})`;
}
