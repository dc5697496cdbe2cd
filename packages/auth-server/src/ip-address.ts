/**
 * An IP address read as what it names. IPv4-mapped (`::ffff:a.b.c.d`, what a dual-stack socket
 * reports) and IPv4-compatible (`::a.b.c.d`, deprecated by RFC 4291 §2.5.5.1) IPv6 forms are the IPv4
 * address they carry, so a rule about addresses (the special-use rule of outbound fetches, the key of
 * per-address limits) cannot be sidestepped by spelling an IPv4 address as IPv6.
 */
import ipaddr from 'ipaddr.js';

/** `address` parsed (it must be valid: `ipaddr.isValid`), embedded IPv4 forms read as IPv4. */
export function embeddedAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6') {
    const parts = (parsed as ipaddr.IPv6).parts;
    // ::/96, but not :: and ::1, which are IPv6's own unspecified and loopback addresses.
    const ownAddress = parts[6] === 0 && parts[7]! <= 1;
    if (parts.slice(0, 6).every((p) => p === 0) && !ownAddress) {
      const [high, low] = [parts[6]!, parts[7]!];
      return ipaddr.IPv4.parse([high >> 8, high & 255, low >> 8, low & 255].join('.'));
    }
  }
  return parsed;
}
