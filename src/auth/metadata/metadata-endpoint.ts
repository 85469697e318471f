import { keys } from '../../config/index.js';
import { isLoopbackHost, unbracketed } from '../../network/index.js';

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

/** The address GCE, Azure and EC2 serve their metadata on. */
export const LINK_LOCAL_METADATA_BASE = 'http://169.254.169.254';

const IN_CLEAR_MESSAGE =
  'must be https://, or http:// on a link-local or loopback host (tokens minted there must not cross a network in clear)';

/** https://, or http:// on an address that never leaves the host. */
export const staysLocalOrEncrypted = (url: URL) =>
  url.protocol === 'https:' || isLinkLocalHost(url.hostname) || isLoopbackHost(url.hostname);

/**
 * The `metadata_endpoint` key: an optional base URL (a test's, or a sidecar's). Checked with the
 * other keys, so `validate` refuses an address that would carry tokens in clear over a network.
 */
export const metadataEndpointKey = () =>
  keys.optionalUrl().refine((url) => url === undefined || staysLocalOrEncrypted(url), { message: IN_CLEAR_MESSAGE });

/** A required URL of a local credentials endpoint (the container endpoint of ECS and EKS), under the same rule. */
export const localCredentialsUrlKey = () => keys.url().refine(staysLocalOrEncrypted, { message: IN_CLEAR_MESSAGE });

/** The URL of `path` below the `metadata_endpoint` key's base, or below `fallback` without one. */
export function metadataUrl(configured: URL | undefined, fallback: string, path: string): URL {
  const base = new URL(configured ?? fallback);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return new URL(path, base);
}

/** 169.254.0.0/16, fe80::/10, AWS's fd00:ec2::254 (IMDS) and fd00:ec2::23 (EKS Pod Identity), and the names GCE gives its metadata server. */
export function isLinkLocalHost(hostname: string): boolean {
  const host = unbracketed(hostname).toLowerCase().replace(/\.$/, '');
  return (
    /^169\.254\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^fe[89ab][0-9a-f]:/.test(host) ||
    host === 'fd00:ec2::254' ||
    host === 'fd00:ec2::23' ||
    host === 'metadata.google.internal' ||
    host === 'metadata'
  );
}
