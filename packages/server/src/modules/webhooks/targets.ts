import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { ListError } from '../../http/errors.js';

/*
 * Where webhooks may go. In production a target is https and its host may not be (or resolve to)
 * a loopback, private, link-local or otherwise reserved address: the server must not become a way
 * to reach its own network. The host is checked when an endpoint is saved, and again on every
 * connection, on the addresses the connection is about to use (lookupPublic below), so a name that
 * resolves elsewhere later (DNS rebinding) is refused too.
 */

// Two lists: a BlockList also checks an IPv4 address against the IPv4-mapped IPv6 ranges it holds.
const reserved4 = new BlockList();
const reserved6 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  reserved4.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  reserved6.addSubnet(net, bits, 'ipv6');
}

/** True for an address that is not a public unicast one. IPv4-mapped IPv6 addresses are judged as IPv4. */
export function isReservedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return reserved4.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  // An IPv4-mapped address written in hexadecimal falls in ::ffff:0:0/96 and is refused as a whole.
  return family === 4 ? reserved4.check(address, 'ipv4') : reserved6.check(address, 'ipv6');
}

export interface TargetRules {
  requireHttps: boolean;
  allowPrivateTargets: boolean;
}

const refuse = (rule: string) => new ListError(400, 'Validation failed', [`body/url ${rule}`]);

/** Resolves every address of `host` (an IP literal resolves to itself). */
function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );
}

/**
 * 400 naming the rule when `url` may not receive webhooks: a scheme other than http(s), http in
 * production, credentials in the URL, or (unless private targets are allowed) a host that does not
 * resolve or resolves to a reserved address.
 */
export async function checkTarget(url: string, rules: TargetRules): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse('must be an absolute URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw refuse('must use https');
  if (rules.requireHttps && parsed.protocol !== 'https:') throw refuse('must use https in production');
  if (parsed.username || parsed.password) throw refuse('must not carry credentials');
  if (rules.allowPrivateTargets) return;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(host);
  } catch {
    throw refuse(`host ${host} does not resolve`);
  }
  const bad = addresses.find((a) => isReservedAddress(a.address));
  if (addresses.length === 0 || bad) {
    throw refuse(`must not resolve to a loopback, private, link-local or reserved address (${host} is ${bad?.address ?? 'unresolved'})`);
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that refuses reserved addresses: the connection uses only the
 * addresses checked here, so no second resolution can point it elsewhere.
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
