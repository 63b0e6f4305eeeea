import { BadRequestException } from '@nestjs/common';
import ipaddr from 'ipaddr.js';

/** D38: the 400 of a `url` that is not an acceptable URL. */
export const URL_MESSAGE = 'url must be an https URL';
/** D38: the 400 of a `url` whose host is a non-public IP address. */
export const PRIVATE_MESSAGE = 'url must not point to a private address';
/** D38: the longest serialization of a webhook URL. */
const MAX_URL_LENGTH = 2000;

/** What the URL rules depend on (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE). */
export interface UrlRules {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** IPv6 global unicast (RFC 4291 2.4): every other IPv6 block is reserved, local or special. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * D38: true when `address` (an IPv4 or IPv6 literal, no brackets) is globally
 * reachable unicast. ipaddr.js classifies it; only its plain `unicast` range
 * passes, so loopback, private, CGNAT, link-local, unique-local, multicast,
 * unspecified, broadcast, documentation, benchmarking and the other reserved
 * ranges are refused. An IPv4-mapped IPv6 address is judged as its IPv4 form;
 * any other IPv6 address must also lie in global unicast (2000::/3), which
 * refuses the reserved blocks ipaddr.js calls plain unicast (`::2`, `4000::1`)
 * and the deprecated IPv4-compatible forms (`::127.0.0.1`, `::7f00:1`).
 * Anything that is not an address is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (!v6.match(GLOBAL_UNICAST_V6)) return false;
  }
  return ip.range() === 'unicast';
}

/** The IP address a WHATWG URL host names (IPv6 without brackets), or null for a host name. */
export function hostAddress(hostname: string): string | null {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  // The WHATWG parser turns every IPv4 form (`0x7f.1`, `2130706433`) into dotted decimal.
  return ipaddr.IPv4.isValidFourPartDecimal(hostname) ? hostname : null;
}

/**
 * D38: a webhook `url` as stored: the WHATWG parser's serialization of
 * `value`. Throws 400 URL_MESSAGE for anything but a string that parses to an
 * `https` URL (`http` too when allowed) without userinfo or fragment, at most
 * 2,000 characters serialized; then 400 PRIVATE_MESSAGE when its host is a
 * non-public IP address (unless allowed). Host names are not judged here
 * (they are resolved at each delivery attempt).
 */
export function webhookUrl(value: unknown, rules: UrlRules): string {
  if (typeof value !== 'string' || !URL.canParse(value)) throw new BadRequestException(URL_MESSAGE);
  const url = new URL(value);
  const schemes = rules.allowHttp ? ['https:', 'http:'] : ['https:'];
  const href = url.href;
  // The first `#` of a serialization always starts the fragment (an empty one included).
  if (!schemes.includes(url.protocol) || url.username !== '' || url.password !== '' || href.includes('#') || href.length > MAX_URL_LENGTH) {
    throw new BadRequestException(URL_MESSAGE);
  }
  const address = hostAddress(url.hostname);
  if (address !== null && !rules.allowPrivate && !isPublicAddress(address)) throw new BadRequestException(PRIVATE_MESSAGE);
  return href;
}
