/**
 * How far apart two addresses are, as the device pairing page tells a person: the device that asked
 * for a code and the browser approving it. A phished approval (someone else's code, sent to a victim)
 * comes from the attacker's network, not the approver's, so the page says so in plain words. The same
 * address or the same network (IPv4 /24, IPv6 /64) is what a person pairing their own agent on the
 * computer or network in front of them sees; anything else is `elsewhere`. An agent in a Codespace or
 * a remote container is elsewhere too: the warning then asks the person to be sure it is theirs.
 */
import ipaddr from 'ipaddr.js';
import { embeddedAddress } from '../ip-address.js';

/** How the request's address relates to the approver's. */
export type Nearness = 'same-address' | 'same-network' | 'elsewhere' | 'unknown';

/** The network an address is in: its /24 (IPv4) or /64 (IPv6). */
function networkOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (address.kind() === 'ipv4') return `${address.toByteArray().slice(0, 3).join('.')}.0/24`;
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}

/** How `requester` (where the code was asked for) relates to `approver` (the browser on the page). */
export function nearness(requester: string | undefined, approver: string): Nearness {
  if (!requester || !ipaddr.isValid(requester) || !ipaddr.isValid(approver)) return 'unknown';
  const a = embeddedAddress(requester);
  const b = embeddedAddress(approver);
  if (a.kind() === b.kind() && a.toNormalizedString() === b.toNormalizedString()) return 'same-address';
  if (a.kind() === b.kind() && networkOf(a) === networkOf(b)) return 'same-network';
  return 'elsewhere';
}
