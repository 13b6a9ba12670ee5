import { describe, expect, it } from 'vitest';
import { BLOCKED_ADDRESS_CODE, blockedAddressReason, checkWebhookUrl, createSafeLookup } from './ssrf.ts';
import type { ResolvedAddress } from './ssrf.ts';

describe('blockedAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['::1', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'], ['fe80::1', 'link-local'], ['febf::1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'], ['100.127.255.255', 'carrier-grade NAT'],
    ['fc00::1', 'unique-local'], ['fd12:3456::1', 'unique-local'],
    ['0.0.0.0', 'this-network'], ['0.1.2.3', 'this-network'], ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'], ['239.255.255.250', 'multicast'], ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved/broadcast'], ['192.0.2.10', 'documentation'],
    ['::ffff:127.0.0.1', 'loopback (embedded in IPv6)'], ['::ffff:7f00:1', 'loopback (embedded in IPv6)'],
    ['::ffff:10.0.0.1', 'private (embedded in IPv6)'], ['::ffff:169.254.169.254', 'link-local (embedded in IPv6)'],
    ['64:ff9b::a9fe:a9fe', 'link-local (embedded in IPv6)'], ['2002:c0a8:0101::1', 'private (embedded in IPv6)'],
    ['::7f00:1', 'loopback (embedded in IPv6)'],
  ])('%s is blocked as %s', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each([
    '8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '192.169.0.1', '169.253.1.1',
    '2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1',
  ])('%s is public', (address) => {
    expect(blockedAddressReason(address)).toBeUndefined();
  });

  it('flags non-addresses', () => expect(blockedAddressReason('example.com')).toBe('not an IP address'));
});

const fakeDns = (answers: Record<string, ResolvedAddress[]>) => async (host: string) => {
  const found = answers[host];
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};
const resolve = fakeDns({
  'hooks.example.com': [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1::1', family: 6 }],
  'rebind.example.com': [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }],
  'metadata.example.com': [{ address: '169.254.169.254', family: 4 }],
});

describe('checkWebhookUrl', () => {
  it.each([
    ['not a url', 'invalid_url'], ['/relative', 'invalid_url'],
    ['ftp://hooks.example.com/x', 'unsupported_scheme'], ['file:///etc/passwd', 'unsupported_scheme'], ['javascript:alert(1)', 'unsupported_scheme'],
    ['https://user:pw@hooks.example.com/', 'credentials_in_url'], ['https://user@hooks.example.com/', 'credentials_in_url'],
    ['https://nowhere.example.com/', 'unresolvable'],
    ['http://127.0.0.1:8080/hook', 'blocked_address'], ['http://[::1]/', 'blocked_address'], ['http://[::ffff:127.0.0.1]/', 'blocked_address'],
    ['http://2130706433/', 'blocked_address'], ['http://0x7f.1/', 'blocked_address'], ['http://0/', 'blocked_address'],
    ['https://metadata.example.com/latest', 'blocked_address'], ['https://rebind.example.com/', 'blocked_address'],
    ['http://localhost:3000/', 'blocked_address'],
  ])('%s is rejected: %s', async (url, reason) => {
    const result = await checkWebhookUrl(url, { allowPrivate: false, resolve: url.includes('localhost') ? undefined : resolve });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toBe(reason);
  });

  it('accepts a public host and reports every address', async () => {
    const result = await checkWebhookUrl('https://hooks.example.com/tapline?x=1', { allowPrivate: false, resolve });
    expect(result).toMatchObject({ ok: true, addresses: [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1::1', family: 6 }] });
  });

  it('names the offending address', async () => {
    const result = await checkWebhookUrl('https://rebind.example.com/', { allowPrivate: false, resolve });
    expect(result).toMatchObject({ ok: false, reason: 'blocked_address', address: '10.0.0.5' });
  });

  it('allows private targets with allowPrivate but still checks scheme and credentials', async () => {
    expect((await checkWebhookUrl('http://127.0.0.1:8080/', { allowPrivate: true })).ok).toBe(true);
    expect((await checkWebhookUrl('http://localhost:8080/', { allowPrivate: true })).ok).toBe(true);
    expect(await checkWebhookUrl('gopher://127.0.0.1/', { allowPrivate: true })).toMatchObject({ reason: 'unsupported_scheme' });
    expect(await checkWebhookUrl('http://a:b@127.0.0.1/', { allowPrivate: true })).toMatchObject({ reason: 'credentials_in_url' });
  });
});

describe('createSafeLookup (connect-time check)', () => {
  const lookup = (allowPrivate: boolean, all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((done) =>
      createSafeLookup({ allowPrivate })('localhost', { all }, (err, address) => done({ err, address })));

  it('refuses a hostname resolving to loopback', async () => {
    for (const all of [true, false]) {
      const { err } = await lookup(false, all);
      expect(err?.code).toBe(BLOCKED_ADDRESS_CODE);
    }
  });

  it('answers in the shape asked for when allowed', async () => {
    const single = await lookup(true, false);
    expect(single.err).toBeNull();
    expect(typeof single.address).toBe('string');
    const many = await lookup(true, true);
    expect(Array.isArray(many.address)).toBe(true);
  });
});
