import { ConfigurationError } from '../errors/index.js';
import { describeUrl, isLoopbackHost } from '../network/index.js';

/**
 * Where a cloud's instance metadata service is: the endpoint that hands a workload the access tokens
 * of the identity attached to the machine it runs on (gcp_metadata, azure_managed_identity), so that
 * configuration.json holds no secret at all.
 *
 * These services speak plain http on a link-local address that never leaves the host
 * (169.254.169.254, or metadata.google.internal which resolves to it). http:// is therefore accepted
 * on link-local and loopback hosts, https:// anywhere; any other http:// address is refused whatever
 * `allow_plain_http` says, because the tokens minted there would cross a network in clear.
 */

/** The address both GCE and Azure serve their metadata on. */
export const LINK_LOCAL_METADATA_BASE = 'http://169.254.169.254';

/**
 * The URL of `path` below `configured` (the `metadata_endpoint` key: a base URL, a test's or a
 * proxy-free sidecar's) or below `fallback`. Throws a ConfigurationError naming the key when the
 * base would send tokens in clear over a network.
 */
export function metadataUrl(configured: URL | undefined, fallback: string, path: string, method: string): URL {
  const base = new URL(configured ?? fallback);
  if (base.protocol === 'http:' && !isLinkLocalHost(base.hostname) && !isLoopbackHost(base.hostname)) {
    throw new ConfigurationError(
      `invalid configuration for auth_method '${method}': key 'metadata_endpoint' must be a link-local or loopback http:// address, or https:// (${describeUrl(base)} would carry access tokens in clear)`,
      { code: 'metadata_endpoint_not_local', key: 'metadata_endpoint', hint: "leave 'metadata_endpoint' out to use the cloud's own metadata service" },
    );
  }
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return new URL(path, base);
}

/** 169.254.0.0/16, fe80::/10, AWS's fd00:ec2::254, and the names GCE gives its metadata server. */
export function isLinkLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  return (
    /^169\.254\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^fe[89ab][0-9a-f]:/.test(host) ||
    host === 'fd00:ec2::254' ||
    host === 'metadata.google.internal' ||
    host === 'metadata'
  );
}
