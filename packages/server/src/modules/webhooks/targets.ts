import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ListError } from '../../lib/errors.js';

/*
 * Where webhooks may go. In production a target is https and every address it is reached at is a
 * public unicast one: the server must not become a way to reach its own network. The rules are
 * applied when an endpoint is saved (checkTarget) and again by the worker on every delivery
 * (refusedTarget, then lookupPublic on the addresses the connection uses), with the worker's own
 * configuration: an endpoint saved under development rules is refused by a production worker, and
 * a name that resolves elsewhere later (DNS rebinding) is refused too. Redirects are never followed.
 */

// Global unicast IPv6 (2000::/3); inside it ipaddr.js names the special ranges (6to4, Teredo, NAT64, documentation, ...).
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * True unless `address` is a public unicast address, as ipaddr.js classifies it: loopback, private,
 * link-local, CGNAT, multicast, documentation, benchmarking and reserved IPv4 ranges; IPv6 outside
 * 2000::/3 (IPv4-compatible `::a.b.c.d`, unique-local, link-local, multicast) or in one of its
 * special ranges (6to4 `2002::/16`, Teredo `2001::/32`, NAT64 `64:ff9b::/96`). IPv4-mapped IPv6
 * (`::ffff:a.b.c.d`) is judged as the IPv4 address it maps. Not an address at all: true.
 */
export function isReservedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  // ipaddr.js reads `::a.b.c.d` as IPv4-mapped: the URL parser's canonical form (`::808:808`) first.
  const parsed = ipaddr.parse(family === 6 ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address);
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() !== 'unicast';
  return !v6.match(GLOBAL_UNICAST_V6) || v6.range() !== 'unicast';
}

export interface TargetRules {
  requireHttps: boolean;
  allowPrivateTargets: boolean;
}

/**
 * Why `url` may not receive webhooks under `rules`, judged without resolving names: not an
 * absolute http(s) URL, http where https is required, credentials in the URL, or a host written
 * as an address (in any form the URL parser accepts: `2130706433`, `0x7f.1`, `[::127.0.0.1]`)
 * that is not public while private targets are not allowed. null when nothing refuses it yet.
 */
export function refusedTarget(url: string, rules: TargetRules): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must use https';
  if (rules.requireHttps && parsed.protocol !== 'https:') return 'must use https in production';
  if (parsed.username || parsed.password) return 'must not carry credentials';
  if (rules.allowPrivateTargets) return null;
  // The URL parser has already turned decimal, octal and hexadecimal IPv4 forms into dotted quads.
  const host = literalHost(parsed);
  if (host !== null && isReservedAddress(host)) return reservedRule(host, host);
  return null;
}

/** The address a URL's host is written as, or null for a name. */
function literalHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) === 0 ? null : host;
}

const reservedRule = (host: string, address: string) =>
  `must not resolve to a loopback, private, link-local or reserved address (${host} is ${address})`;

const refuse = (rule: string) => new ListError(400, 'Validation failed', [`body/url ${rule}`]);

/** Resolves every address of `host`. */
function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );
}

/**
 * 400 naming the rule when `url` may not receive webhooks (refusedTarget), or (unless private
 * targets are allowed) when its host name does not resolve or resolves to a reserved address.
 */
export async function checkTarget(url: string, rules: TargetRules): Promise<void> {
  const refused = refusedTarget(url, rules);
  if (refused !== null) throw refuse(refused);
  if (rules.allowPrivateTargets) return;
  const parsed = new URL(url);
  if (literalHost(parsed) !== null) return;
  const host = parsed.hostname;
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(host);
  } catch {
    throw refuse(`host ${host} does not resolve`);
  }
  const bad = addresses.find((a) => isReservedAddress(a.address));
  if (addresses.length === 0 || bad) throw refuse(reservedRule(host, bad?.address ?? 'unresolved'));
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that refuses reserved addresses: the connection uses only the
 * addresses checked here, so no second resolution can point it elsewhere. (Node calls no lookup
 * for a host written as an address: the worker refuses those with refusedTarget before connecting.)
 */
export function lookupPublic(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const bad = addresses.find((a) => isReservedAddress(a.address));
    if (bad || addresses.length === 0) {
      const refused = Object.assign(new Error(`${hostname} resolves to a reserved address (${bad?.address ?? 'none'})`), {
        code: 'EADDRNOTALLOWED',
      });
      return callback(refused, []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/**
 * Whether the socket a delivery got is connected to an address the rules allow: the last check,
 * on the address actually connected to (a kept-alive socket, or one a custom lookup could not see).
 */
export function connectedAddressRefused(remoteAddress: string | undefined, rules: TargetRules): string | null {
  if (rules.allowPrivateTargets) return null;
  if (remoteAddress === undefined) return 'connected to an unknown address';
  return isReservedAddress(remoteAddress) ? `connected to a reserved address (${remoteAddress})` : null;
}
