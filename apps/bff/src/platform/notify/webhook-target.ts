import type { Agent } from 'node:http';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

// Where a webhook may go. A webhook URL is typed by a person, so it is checked twice: here,
// when it is saved (scheme, credentials, an address written in the URL, a local name), and again on every
// connection by request-filtering-agent, which checks the address the name resolved to right
// before connecting, so a name that resolves to a public address at validation and to
// 127.0.0.1 later (DNS rebinding) is still refused.

/** What the operator allows beyond public HTTPS endpoints. */
export interface WebhookPolicy {
  /** `http:` URLs (development only): the alert and the signature travel in the clear. */
  allowInsecure?: boolean;
  /** Any private, loopback, link-local or unique-local address (never 0.0.0.0 or `::`). */
  allowPrivate?: boolean;
  /** Host names, addresses or CIDRs (`10.1.0.0/16`, `fd00::/8`) allowed though not public. */
  allowList?: readonly string[];
}

export type WebhookTargetProblem =
  | 'invalid_url'
  | 'insecure_scheme'
  | 'credentials_in_url'
  | 'private_address'
  | 'local_name'
  | 'invalid_allow_list'
  | 'weak_secret';

export class WebhookTargetError extends Error {
  readonly reason: WebhookTargetProblem;

  constructor(reason: WebhookTargetProblem, message: string) {
    super(message);
    this.name = 'WebhookTargetError';
    this.reason = reason;
  }
}

/** A checked webhook: its URL, the secret it is signed with, and the agent that guards it. */
export interface WebhookTarget {
  readonly url: URL;
  readonly secret: string;
  readonly agent: Agent;
}

/** Shortest secret accepted: 16 characters; a random 32-byte hex string is what we suggest. */
export const minSecretLength = 16;

interface ParsedAllowList {
  hosts: Set<string>;
  /** Single addresses as /32 or /128, so the agent matches any spelling of them. */
  cidrs: string[];
}

function parseAllowList(entries: readonly string[]): ParsedAllowList {
  const hosts = new Set<string>();
  const cidrs: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry))
        throw new WebhookTargetError('invalid_allow_list', `not a CIDR: ${raw}`);
      const [address, bits] = ipaddr.parseCIDR(entry);
      cidrs.push(`${address.toString()}/${bits}`);
    } else if (ipaddr.isValid(entry)) {
      const address = ipaddr.parse(entry);
      cidrs.push(`${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`);
    } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)) {
      hosts.add(entry);
    } else {
      throw new WebhookTargetError('invalid_allow_list', `not a host, address or CIDR: ${raw}`);
    }
  }
  return { hosts, cidrs };
}

/** IPv6's global unicast block: every public IPv6 address is in it. */
const globalUnicast = ipaddr.parseCIDR('2000::/3');

/** Whether an address written in the URL may be connected to under the policy. */
function addressAllowed(host: string, policy: WebhookPolicy, allow: ParsedAllowList): boolean {
  const address = ipaddr.parse(host);
  const listed = allow.cidrs.some((cidr) => {
    const range = ipaddr.parseCIDR(cidr);
    return range[0].kind() === address.kind() && address.match(range);
  });
  if (listed) return true;
  // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is not "unicast": refused like its IPv4.
  // The IPv4-compatible ones (::127.0.0.1, ::7f00:1) are "unicast" to ipaddr.js though outside
  // the global block: an IPv6 address is public only inside 2000::/3.
  const range = address.range();
  const global = address.kind() === 'ipv4' || (address as ipaddr.IPv6).match(globalUnicast);
  if (range === 'unicast' && global) return true;
  return policy.allowPrivate === true && range !== 'unspecified';
}

/**
 * Names for this machine, the local network or a cloud's metadata service, refused when a
 * target is saved (the connect-time guard would refuse what they resolve to anyway; saying so
 * now is clearer): `localhost` and `*.localhost`, a name of one label (`intranet`: resolved
 * through the local search domains), the special-use and private-use suffixes (RFC 6761,
 * RFC 6762 appendix G, RFC 8375) and any `metadata.*` (`metadata.google.internal`).
 */
const localSuffixes = [
  'localhost',
  'localdomain',
  'local',
  'internal',
  'intranet',
  'private',
  'corp',
  'home',
  'lan',
  'home.arpa',
];

/** Whether `host` (a name, not an address) is a local or metadata name, and which. */
export function localNameKind(host: string): 'metadata' | 'local' | undefined {
  const name = host.toLowerCase().replace(/\.+$/, '');
  const labels = name.split('.');
  if (labels[0] === 'metadata' || labels[0] === 'instance-data') return 'metadata';
  if (labels.length < 2) return 'local';
  return localSuffixes.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))
    ? 'local'
    : undefined;
}

/**
 * The webhook checked against the policy; throws `WebhookTargetError`. The returned agent
 * repeats the address check on every connection.
 */
export function webhookTarget(
  input: { url: string; secret: string },
  policy: WebhookPolicy = {},
): WebhookTarget {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new WebhookTargetError('invalid_url', 'the webhook URL is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new WebhookTargetError('invalid_url', 'a webhook URL is https: (or http:)');
  if (url.protocol === 'http:' && !policy.allowInsecure)
    throw new WebhookTargetError('insecure_scheme', 'a webhook URL must use https:');
  if (url.username !== '' || url.password !== '')
    throw new WebhookTargetError(
      'credentials_in_url',
      'a webhook URL carries no user name or password: the signature authenticates us',
    );
  if (input.secret.length < minSecretLength)
    throw new WebhookTargetError(
      'weak_secret',
      `a webhook secret has at least ${minSecretLength} characters`,
    );
  url.hash = '';

  const allow = parseAllowList(policy.allowList ?? []);
  // The URL parser has already turned 2130706433, 0x7f.1 and [::ffff:7f00:1] into addresses.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const hostListed = allow.hosts.has(host.toLowerCase());
  if (ipaddr.isValid(host)) {
    if (!hostListed && !addressAllowed(host, policy, allow))
      throw new WebhookTargetError(
        'private_address',
        'a webhook URL points at a private, loopback or otherwise non-public address',
      );
  } else if (!hostListed) {
    const local = localNameKind(host);
    // Private targets allowed: local names are too, a metadata service never.
    if (local === 'metadata' || (local === 'local' && policy.allowPrivate !== true))
      throw new WebhookTargetError(
        'local_name',
        'a webhook URL names this machine, the local network or a cloud metadata service',
      );
  }

  const filter = {
    allowPrivateIPAddress: policy.allowPrivate === true || hostListed,
    allowMetaIPAddress: false,
    allowIPAddressList: allow.cidrs,
    keepAlive: false,
  };
  const agent =
    url.protocol === 'https:'
      ? new RequestFilteringHttpsAgent(filter)
      : new RequestFilteringHttpAgent(filter);
  return { url, secret: input.secret, agent };
}

/**
 * Whether a request failed because the guard refused the address it was about to connect to
 * (request-filtering-agent's refusal: "… is not allowed. Because, …").
 */
export function isRefusedAddress(err: unknown): boolean {
  return err instanceof Error && /^DNS lookup .* is not allowed\. Because/.test(err.message);
}
