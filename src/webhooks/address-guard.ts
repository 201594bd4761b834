import { lookup, type LookupAddress } from 'node:dns';
import { lookup as lookupPromise } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Webhook URLs come from operators, and the service sits next to its database, its cache and,
 * in a cloud, the instance metadata endpoint. Without a check a registered endpoint could make
 * the service send requests into its own network (server-side request forgery) and report how
 * they went. Only public unicast addresses are allowed unless WEBHOOK_ALLOW_PRIVATE says
 * otherwise (a receiver on the same host or network, in development or a private deployment).
 */

export const ADDRESS_REFUSED_CODE = 'EWEBHOOKADDRESS';

type Family = 'ipv4' | 'ipv6';

/** First match wins, so a narrower range whose reason says more comes before a wider one. */
const REFUSED_RANGES: readonly { reason: string; ipv4?: string[]; ipv6?: string[] }[] = [
  { reason: 'unspecified', ipv4: ['0.0.0.0/8'], ipv6: ['::/128'] },
  { reason: 'loopback', ipv4: ['127.0.0.0/8'], ipv6: ['::1/128'] },
  // fec0::/10 is the deprecated site-local range, private in all but name where it is still used.
  { reason: 'private', ipv4: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'], ipv6: ['fc00::/7', 'fec0::/10'] },
  { reason: 'carrier-grade NAT', ipv4: ['100.64.0.0/10'] },
  { reason: 'link-local (includes cloud metadata)', ipv4: ['169.254.0.0/16'], ipv6: ['fe80::/10'] },
  { reason: 'multicast', ipv4: ['224.0.0.0/4'], ipv6: ['ff00::/8'] },
  { reason: 'broadcast', ipv4: ['255.255.255.255/32'] },
  { reason: 'documentation', ipv4: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'], ipv6: ['2001:db8::/32', '3fff::/20'] },
  { reason: 'benchmarking', ipv4: ['198.18.0.0/15'], ipv6: ['2001:2::/48'] },
  // 64:ff9b:1::/48 is NAT64 for a local network, whose IPv4 side may be anything.
  { reason: 'reserved', ipv4: ['240.0.0.0/4', '192.0.0.0/24'], ipv6: ['100::/64', '64:ff9b:1::/48'] },
];

function blockListOf(ranges: readonly { cidrs: readonly string[]; family: Family }[]): BlockList {
  const list = new BlockList();
  for (const { cidrs, family } of ranges) {
    for (const cidr of cidrs) {
      const [network = '', prefix = ''] = cidr.split('/');
      list.addSubnet(network, Number(prefix), family);
    }
  }
  return list;
}

const REFUSED = REFUSED_RANGES.map(({ reason, ipv4 = [], ipv6 = [] }) => ({
  reason,
  list: blockListOf([
    { cidrs: ipv4, family: 'ipv4' },
    { cidrs: ipv6, family: 'ipv6' },
  ]),
}));

/** Everything assigned for public IPv6 unicast lies here; the rest is reserved or special. */
const GLOBAL_UNICAST_IPV6 = blockListOf([{ cidrs: ['2000::/3'], family: 'ipv6' }]);

/**
 * IPv6 forms that carry an IPv4 address, with the group where it starts: a connection to one of
 * them reaches that IPv4 host, so it is judged as that host.
 */
const ipv4Carrier = (cidr: string, group: number) => ({ list: blockListOf([{ cidrs: [cidr], family: 'ipv6' }]), group });
const IPV4_CARRIERS = [
  ipv4Carrier('::ffff:0:0/96', 6), // mapped
  ipv4Carrier('::ffff:0:0:0/96', 6), // translated (SIIT)
  ipv4Carrier('::/96', 6), // compatible (deprecated)
  ipv4Carrier('64:ff9b::/96', 6), // NAT64
  ipv4Carrier('2002::/16', 1), // 6to4
];

/** The eight groups of an IPv6 address that `isIP` has accepted, `::` and a dotted tail expanded. */
function ipv6Groups(address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  let text = address;
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${address.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const [head = '', tail] = text.split('::');
  if (tail === undefined) return groupsOf(head);
  const before = groupsOf(head);
  const after = groupsOf(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

function embeddedIpv4(address: string): string | undefined {
  const carrier = IPV4_CARRIERS.find(({ list }) => list.check(address, 'ipv6'));
  if (carrier === undefined) return undefined;
  const groups = ipv6Groups(address);
  const high = groups[carrier.group] ?? 0;
  const low = groups[carrier.group + 1] ?? 0;
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/** Why a connection to this IP address is refused, or undefined for a public one. */
export function refusedAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return REFUSED.find(({ list }) => list.check(address, 'ipv4'))?.reason;
  // Anything but an IP address is refused: answering undefined would let it pass as public.
  if (family !== 6) return 'not an IP address';
  // BlockList does not match an address that carries a zone (fe80::1%eth0).
  const bare = address.replace(/%.*$/, '');
  const reason = REFUSED.find(({ list }) => list.check(bare, 'ipv6'))?.reason;
  if (reason !== undefined) return reason;
  const inner = embeddedIpv4(bare);
  if (inner !== undefined) return refusedAddressReason(inner);
  return GLOBAL_UNICAST_IPV6.check(bare, 'ipv6') ? undefined : 'reserved';
}

const withArticle = (reason: string) => `${/^[aeiou]/i.test(reason) ? 'an' : 'a'} ${reason}`;

function addressRefused(problem: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${problem}; set WEBHOOK_ALLOW_PRIVATE=true to allow it`);
  error.code = ADDRESS_REFUSED_CODE;
  return error;
}

function firstRefusal(hostname: string, addresses: readonly LookupAddress[]): NodeJS.ErrnoException | undefined {
  for (const { address } of addresses) {
    const reason = refusedAddressReason(address);
    if (reason !== undefined) return addressRefused(`${hostname} resolves to ${address}, ${withArticle(reason)} address`);
  }
  return undefined;
}

/**
 * A `lookup` for the options of `http.request`/`https.request` that refuses a host name if any of
 * its addresses is refused, and hands the socket exactly the addresses it checked: with no second
 * resolution, a name that answers differently a moment later (DNS rebinding) gains nothing.
 *
 * Node does not call `lookup` when the host is an IP address, so a caller must check an IP
 * literal with `refusedAddressReason` itself before connecting (`checkWebhookUrl` does). Nor does
 * it call `lookup` for a socket an agent kept alive, whichever `lookup` opened it: webhook
 * requests need an agent that no unguarded request shares.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    // All of them, whatever was asked: with happy eyeballs the socket may try any of them.
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, '');
      const refusal = allowPrivate ? undefined : firstRefusal(hostname, addresses);
      if (refusal !== undefined) return callback(refusal, '');
      // Node asks for one address or for all, depending on its version and the socket's options.
      if (options.all === true) return callback(null, addresses);
      const [first] = addresses;
      if (first === undefined) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}

/** The checks when an operator registers an endpoint; a sender still needs `guardedLookup` when it connects. */
export async function checkWebhookUrl(url: string, allowPrivate: boolean): Promise<URL> {
  // The URL is never quoted back: webhook URLs often carry a token in their path or query.
  if (!URL.canParse(url)) throw new Error('a webhook URL must be an absolute http: or https: URL');
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`a webhook URL must use http: or https:, not ${parsed.protocol}`);
  }
  if (parsed.username !== '' || parsed.password !== '') throw new Error('a webhook URL must not carry a username or password');
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    const reason = refusedAddressReason(host);
    if (reason !== undefined && !allowPrivate) throw addressRefused(`${host} is ${withArticle(reason)} address`);
    return parsed;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await lookupPromise(host, { all: true });
  } catch (error) {
    throw new Error(`${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const refusal = allowPrivate ? undefined : firstRefusal(host, addresses);
  if (refusal !== undefined) throw refusal;
  return parsed;
}
