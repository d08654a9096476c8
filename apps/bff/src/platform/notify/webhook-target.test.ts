import { describe, expect, it } from 'vitest';
import { type WebhookPolicy, WebhookTargetError, webhookTarget } from './webhook-target';

const secret = 'a-secret-of-enough-length';

function refusal(url: string, policy: WebhookPolicy = {}, s = secret): string | undefined {
  try {
    webhookTarget({ url, secret: s }, policy);
    return undefined;
  } catch (err) {
    if (err instanceof WebhookTargetError) return err.reason;
    throw err;
  }
}

const nonPublic = [
  'https://127.0.0.1/hook',
  'https://127.1.2.3/hook',
  'https://2130706433/hook', // 127.0.0.1 as one number
  'https://0x7f.0.0.1/hook',
  'https://10.0.0.1/hook',
  'https://172.16.5.4/hook',
  'https://192.168.1.1/hook',
  'https://169.254.169.254/latest/meta-data', // cloud metadata, link-local
  'https://100.64.0.1/hook', // carrier-grade NAT
  'https://0.0.0.0/hook',
  'https://224.0.0.1/hook',
  'https://255.255.255.255/hook',
  'https://[::1]/hook',
  'https://[::]/hook',
  'https://[fe80::1]/hook',
  'https://[fc00::1]/hook',
  'https://[fd12:3456::1]/hook',
  'https://[ff02::1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:10.0.0.1]/hook',
  'https://[::ffff:169.254.169.254]/hook',
  // IPv4-compatible (deprecated) and other IPv6 spellings outside the global unicast block.
  'https://[::127.0.0.1]/hook',
  'https://[::7f00:1]/hook',
  'https://[::10.0.0.1]/hook',
  'https://[0:0:0:0:0:0:0:1]/hook',
  'https://[0000::0001]/hook',
  'https://[::ffff:7f00:1]/hook',
  'https://[::ffff:0:127.0.0.1]/hook', // IPv4-translated
  'https://[64:ff9b::127.0.0.1]/hook', // NAT64
  'https://[2002:7f00:1::]/hook', // 6to4 of 127.0.0.1
  'https://[fec0::1]/hook', // site-local
  'https://[FE80::abcd]/hook',
  'https://[100::1]/hook', // discard
  'https://[4000::1]/hook', // not yet allocated
  // IPv4 in decimal, octal, hex and short forms (the URL parser reads them all).
  'https://0177.0.0.1/hook',
  'https://0x7f000001/hook',
  'https://017700000001/hook',
  'https://127.1/hook',
  'https://0x0a.0.0.1/hook',
  'https://3232235777/hook', // 192.168.1.1
  'https://0xA9.0xFE.0xA9.0xFE/hook', // 169.254.169.254
  'https://0/hook',
];

/** Names for this machine, the local network or a cloud's metadata service: refused as named. */
const localNames = [
  'https://localhost/hook',
  'https://LOCALHOST/hook',
  'https://localhost./hook',
  'https://localhost../hook',
  'https://api.localhost/hook',
  'https://%6c%6fcalhost/hook',
  'https://localhost.localdomain/hook',
  'https://printer.local/hook',
  'https://printer.local./hook',
  'https://db.internal/hook',
  'https://hooks.corp.internal/hook',
  'https://intranet/hook',
  'https://router.home.arpa/hook',
  'https://nas.lan/hook',
  'https://metadata/computeMetadata/v1/',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://metadata.google.internal./computeMetadata/v1/',
  'https://METADATA.example.com/latest',
  'https://instance-data.ec2.internal/latest',
];

describe('a webhook target', () => {
  it('accepts a public https URL, with or without a path and port', () => {
    for (const url of [
      'https://hooks.example.com/services/T0/B0/x',
      'https://93.184.216.34:8443/hook',
      'https://[2606:2800:220:1:248:1893:25c8:1946]/hook',
    ]) {
      expect(refusal(url)).toBeUndefined();
    }
    expect(webhookTarget({ url: 'https://hooks.example.com/x#frag', secret }).url.href).toBe(
      'https://hooks.example.com/x',
    );
  });

  it('refuses http: unless the operator allows insecure webhooks', () => {
    expect(refusal('http://hooks.example.com/x')).toBe('insecure_scheme');
    expect(refusal('http://hooks.example.com/x', { allowInsecure: true })).toBeUndefined();
    expect(refusal('ftp://hooks.example.com/x', { allowInsecure: true })).toBe('invalid_url');
    expect(refusal('not a url')).toBe('invalid_url');
  });

  it('refuses credentials in the URL', () => {
    expect(refusal('https://user:pass@hooks.example.com/x')).toBe('credentials_in_url');
    expect(refusal('https://user@hooks.example.com/x')).toBe('credentials_in_url');
  });

  it('refuses a short secret', () => {
    expect(refusal('https://hooks.example.com/x', {}, 'short')).toBe('weak_secret');
  });

  it('refuses every private, loopback, link-local, unique-local, multicast or unspecified address, however written', () => {
    for (const url of nonPublic) {
      expect([url, refusal(url)]).toEqual([url, 'private_address']);
    }
  });

  it('refuses local and metadata host names when saved, before any connection', () => {
    for (const url of localNames) {
      expect([url, refusal(url)]).toEqual([url, 'local_name']);
    }
    for (const url of [
      'https://hooks.example.com/x',
      'https://localhost.example.com/x',
      'https://internal.example.com/x',
      'https://my-metadata.example.com/x',
      'https://example.local.example.com/x',
    ]) {
      expect([url, refusal(url)]).toEqual([url, undefined]);
    }
  });

  it('with allowPrivate, accepts local names but never a metadata name', () => {
    expect(refusal('https://localhost/hook', { allowPrivate: true })).toBeUndefined();
    expect(refusal('https://db.internal/hook', { allowPrivate: true })).toBeUndefined();
    expect(refusal('https://[::127.0.0.1]/hook', { allowPrivate: true })).toBeUndefined();
    expect(refusal('https://metadata.google.internal/x', { allowPrivate: true })).toBe(
      'local_name',
    );
    expect(
      refusal('https://metadata.google.internal/x', { allowList: ['metadata.google.internal'] }),
    ).toBeUndefined();
  });

  it('with allowPrivate, accepts private addresses but never the unspecified ones', () => {
    expect(refusal('https://10.0.0.1/hook', { allowPrivate: true })).toBeUndefined();
    expect(refusal('https://[::1]/hook', { allowPrivate: true })).toBeUndefined();
    expect(refusal('https://0.0.0.0/hook', { allowPrivate: true })).toBe('private_address');
    expect(refusal('https://[::]/hook', { allowPrivate: true })).toBe('private_address');
  });

  it('with an allow list, accepts exactly the listed hosts, addresses and ranges', () => {
    const policy = { allowList: ['10.1.0.0/16', '192.168.7.7', 'fd00::/8', 'hooks.internal'] };
    expect(refusal('https://10.1.2.3/hook', policy)).toBeUndefined();
    expect(refusal('https://192.168.7.7/hook', policy)).toBeUndefined();
    expect(refusal('https://[fd00::5]/hook', policy)).toBeUndefined();
    expect(refusal('https://10.2.0.1/hook', policy)).toBe('private_address');
    expect(refusal('https://192.168.7.8/hook', policy)).toBe('private_address');
    expect(refusal('https://127.0.0.1/hook', policy)).toBe('private_address');
    expect(refusal('https://hooks.internal/hook', policy)).toBeUndefined();
  });

  it('refuses an allow list entry that is neither a host, an address nor a CIDR', () => {
    expect(refusal('https://hooks.example.com/x', { allowList: ['10.0.0.0/99'] })).toBe(
      'invalid_allow_list',
    );
    expect(refusal('https://hooks.example.com/x', { allowList: ['*.internal'] })).toBe(
      'invalid_allow_list',
    );
  });
});
