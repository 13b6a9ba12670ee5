// SSRF guard for webhook URLs. Checked twice: when a URL is accepted/before an
// attempt (checkWebhookUrl, which also covers IP literals that Node connects to
// without any lookup) and at connect time (createSafeLookup as the `lookup`
// option of node:http(s).request), so a hostname that re-resolves to an
// internal address after the first check (DNS rebinding) is still refused.
import dns from 'node:dns';
import net from 'node:net';
import type { LookupAddress, LookupAllOptions } from 'node:dns';

export interface ResolvedAddress { readonly address: string; readonly family: 4 | 6 }
/** Resolves a hostname to all its addresses (dns.lookup with all: true by default). */
export type ResolveHost = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export type UrlRejection = 'invalid_url' | 'unsupported_scheme' | 'credentials_in_url' | 'unresolvable' | 'blocked_address';

export type UrlCheckResult =
  | { readonly ok: true; readonly url: URL; readonly addresses: readonly ResolvedAddress[] }
  | { readonly ok: false; readonly reason: UrlRejection; readonly message: string; readonly address?: string };

export interface UrlCheckOptions {
  /** Allow private, loopback and link-local targets (self-hosted setups, tests). */
  readonly allowPrivate: boolean;
  readonly resolve?: ResolveHost;
}

// [range, prefix, label]; labels end up in error messages and docs.
const V4_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, 'this-network'], ['10.0.0.0', 8, 'private'], ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'], ['169.254.0.0', 16, 'link-local'], ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'], ['192.0.2.0', 24, 'documentation'], ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'], ['198.51.100.0', 24, 'documentation'], ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'], ['240.0.0.0', 4, 'reserved/broadcast'],
];
const V6_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ['::', 128, 'unspecified'], ['::1', 128, 'loopback'], ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'], ['fec0::', 10, 'site-local'], ['ff00::', 8, 'multicast'], ['2001:db8::', 32, 'documentation'],
];

function buildList(): Array<{ list: net.BlockList; label: string; family: 'ipv4' | 'ipv6' }> {
  const entry = (range: string, prefix: number, label: string, family: 'ipv4' | 'ipv6') => {
    const list = new net.BlockList();
    list.addSubnet(range, prefix, family);
    return { list, label, family };
  };
  return [...V4_RANGES.map(([r, p, l]) => entry(r, p, l, 'ipv4')), ...V6_RANGES.map(([r, p, l]) => entry(r, p, l, 'ipv6'))];
}
const BLOCKED = buildList();

/** Expands an IPv6 address into its 8 hextets (handles `::` and a dotted-quad tail). */
function ipv6Hextets(address: string): number[] {
  let text = address.toLowerCase();
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad[1].split('.').map(Number);
    text = text.slice(0, quad.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((h) => parseInt(h, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  const zeros = tail === undefined ? [] : new Array(8 - front.length - back.length).fill(0);
  return [...front, ...zeros, ...back];
}

/** IPv4 address embedded in IPv4-mapped/-compatible, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) addresses. */
function embeddedIPv4(address: string): string | undefined {
  const h = ipv6Hextets(address);
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeroUpTo = (n: number) => h.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(5) && h[5] === 0xffff) return v4(h[6], h[7]);
  if (zeroUpTo(6) && (h[6] !== 0 || h[7] > 1)) return v4(h[6], h[7]);
  if (h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((x) => x === 0)) return v4(h[6], h[7]);
  if (h[0] === 0x2002) return v4(h[1], h[2]);
  return undefined;
}

/** Why an IP address is not a permitted webhook target, or undefined when it is public. */
export function blockedAddressReason(address: string): string | undefined {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const inner = embeddedIPv4(address);
    if (inner !== undefined) {
      const reason = blockedAddressReason(inner);
      return reason && `${reason} (embedded in IPv6)`;
    }
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return BLOCKED.find((b) => b.family === type && b.list.check(address, type))?.label;
}

export const resolveWithDns: ResolveHost = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

function reject(reason: UrlRejection, message: string, address?: string): UrlCheckResult {
  return address === undefined ? { ok: false, reason, message } : { ok: false, reason, message, address };
}

/** Validates a webhook URL and (unless allowPrivate) that every address it resolves to is public. */
export async function checkWebhookUrl(rawUrl: string, options: UrlCheckOptions): Promise<UrlCheckResult> {
  let url: URL;
  try { url = new URL(rawUrl); } catch { return reject('invalid_url', 'not a valid absolute URL'); }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject('unsupported_scheme', 'only http and https URLs are allowed');
  if (url.username !== '' || url.password !== '') return reject('credentials_in_url', 'URLs with user credentials are not allowed');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: readonly ResolvedAddress[];
  if (net.isIP(host) !== 0) addresses = [{ address: host, family: net.isIP(host) === 6 ? 6 : 4 }];
  else {
    try { addresses = await (options.resolve ?? resolveWithDns)(host); } catch { addresses = []; }
    if (addresses.length === 0) return reject('unresolvable', `host ${host} could not be resolved`);
  }
  if (options.allowPrivate) return { ok: true, url, addresses };
  for (const { address } of addresses) {
    const why = blockedAddressReason(address);
    if (why !== undefined) return reject('blocked_address', `host resolves to a ${why} address, which is not allowed`, address);
  }
  return { ok: true, url, addresses };
}

/** Error code set on lookups refused by the SSRF guard. */
export const BLOCKED_ADDRESS_CODE = 'ERR_WEBHOOK_BLOCKED_ADDRESS';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
/** Shape of the `lookup` option of net.connect / http.request. */
export type SafeLookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void;

/**
 * A `lookup` for node:http(s).request that refuses (with code BLOCKED_ADDRESS_CODE)
 * hostnames resolving to any non-public address. Honours `all` (used by Node's
 * happy-eyeballs connect) and `family`.
 */
export function createSafeLookup(options: { readonly allowPrivate: boolean }): SafeLookup {
  return (hostname, lookupOptions, callback) => {
    const allOptions: LookupAllOptions = { ...lookupOptions, all: true };
    dns.lookup(hostname, allOptions, (err, found) => {
      if (err) return callback(err, []);
      const blocked = options.allowPrivate ? undefined : found.find((a) => blockedAddressReason(a.address) !== undefined);
      if (blocked) {
        const error: NodeJS.ErrnoException = new Error(`webhook host ${hostname} resolves to a non-public address`);
        error.code = BLOCKED_ADDRESS_CODE;
        return callback(error, []);
      }
      if (found.length === 0) return callback(Object.assign(new Error(`no addresses for ${hostname}`), { code: 'ENOTFOUND' }), []);
      if (lookupOptions.all) return callback(null, found);
      callback(null, found[0].address, found[0].family);
    });
  };
}

/** The strict lookup (private targets refused). */
export const safeLookup: SafeLookup = createSafeLookup({ allowPrivate: false });
