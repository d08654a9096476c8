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
